// Side-by-side produce test for Herald's bus port: kafkajs 2.2.4 vs @platformatic/kafka.
// Not part of the npm scripts: @platformatic/kafka is not a dependency. Run it in a
// scratch folder (figures in docs/architecture.md, "Kafka client"):
//
//   mkdir /tmp/kafka-clients && cd /tmp/kafka-clients && npm init -y
//   npm install kafkajs@2.2.4 @platformatic/kafka@1.35.0 && cp <repo>/bench/kafka-clients/produce-compare.mjs .
//   IN_FLIGHT=1 BATCH=600 node produce-compare.mjs kafkajs       # then: ... platformatic
//
// Broker 127.0.0.1:9092; N (100,000), BATCH (500) and IN_FLIGHT (4) from the environment.
// Per client: an idempotent producer (acks all), N records of ~800 bytes with two headers
// (Herald's trigger messages), batches of BATCH, IN_FLIGHT sends at once; CPU per record
// from process.cpuUsage; then the topic is read back to check that every record is there
// once and in send order per key.
import { Kafka, logLevel } from 'kafkajs';
import { Producer, stringSerializers } from '@platformatic/kafka';

const BROKERS = ['127.0.0.1:9092'];
const N = Number(process.env.N ?? 100_000);
const BATCH = Number(process.env.BATCH ?? 500);
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 4);
const PARTITIONS = 12;
const KEYS = 1000;
const which = process.argv[2];
const kafka = new Kafka({ clientId: 'scratch', brokers: BROKERS, logLevel: logLevel.NOTHING });
const topic = `scratch-produce-${which}-${Date.now()}`;
const pad = 'x'.repeat(700);
const messages = Array.from({ length: N }, (_, i) => ({
  key: `ws:user-${i % KEYS}`,
  value: JSON.stringify({ seq: i, pad }),
  headers: { 'message-id': `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, 'trigger-message-id': 'aaaaaaaa-0000-4000-8000-000000000000' },
}));

async function inBatches(send) {
  let next = 0;
  const errors = [];
  async function lane() {
    while (next < N) {
      const from = next;
      next += BATCH;
      try { await send(messages.slice(from, from + BATCH)); } catch (e) { errors.push(e); return; }
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return errors;
}

async function produce() {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true });
  await admin.disconnect();
  let send, close;
  if (which === 'kafkajs') {
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: IN_FLIGHT });
    await producer.connect();
    send = (batch) => producer.send({ topic, acks: -1, messages: batch });
    close = () => producer.disconnect();
  } else {
    const producer = new Producer({ clientId: 'scratch-plt', bootstrapBrokers: BROKERS, serializers: stringSerializers, idempotent: true, acks: -1, autocreateTopics: false });
    send = (batch) => producer.send({ messages: batch.map((m) => ({ topic, key: m.key, value: m.value, headers: m.headers })) });
    close = () => producer.close();
  }
  await send([{ key: 'warm-up', value: JSON.stringify({ seq: -1 }), headers: {} }]); // connect and metadata outside the measurement
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const errors = await inBatches((batch) => send(batch));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await close();
  const cpuUs = cpu.user + cpu.system;
  console.log(JSON.stringify({ client: which, records: N, batch: BATCH, inFlight: IN_FLIGHT, seconds: +seconds.toFixed(2), recordsPerS: Math.round(N / seconds), cpuUsPerRecord: +(cpuUs / N).toFixed(1), errors: errors.map((e) => `${e.name}: ${e.message} ${(e.errors ?? []).map((x) => `${x.name}: ${x.message} ${JSON.stringify(x.response ?? x.errors?.map?.((y) => y.message) ?? '', (k, v) => (typeof v === 'bigint' ? String(v) : v)).slice(0, 300)}`).join('; ')}`).slice(0, 2) }));
  return errors.length;
}

async function verify() {
  const consumer = kafka.consumer({ groupId: `scratch-verify-${Date.now()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const lastSeq = new Map();
  let count = 0, outOfOrder = 0, dupes = 0;
  const seen = new Set();
  await new Promise((resolve) => {
    const idle = setTimeout(resolve, 15000);
    consumer.run({ eachBatch: async ({ batch }) => {
      for (const m of batch.messages) {
        const { seq } = JSON.parse(m.value.toString());
        if (seq < 0) continue;
        if (seen.has(seq)) dupes++; seen.add(seq);
        const key = m.key.toString();
        if ((lastSeq.get(key) ?? -1) > seq) outOfOrder++;
        lastSeq.set(key, seq);
        count++;
      }
      if (seen.size >= N) { clearTimeout(idle); resolve(); }
    } });
  });
  await consumer.disconnect();
  const admin = kafka.admin(); await admin.connect(); await admin.deleteTopics({ topics: [topic] }).catch(() => {}); await admin.disconnect();
  console.log(JSON.stringify({ client: which, readBack: count, distinct: seen.size, missing: N - seen.size, dupes, outOfOrderPerKey: outOfOrder }));
}

await produce();
await verify();
process.exit(0);

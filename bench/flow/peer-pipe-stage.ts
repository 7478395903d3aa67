// One stage of the flow bench's peer (see peer-pipe.ts): the least a Kafka-and-Postgres
// service does per message, written the plain way with kafkajs and pg. It consumes
// batches of PEER_FROM in consumer group PEER_GROUP, inserts each batch's records as
// rows of PEER_TABLE in one statement, produces them to PEER_TO (when set), then lets
// kafkajs commit the batch's offsets. Started and stopped by peer-pipe.ts; it prints
// `peer stage ready` once its group has assigned it partitions.

process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';

import { Kafka, logLevel } from 'kafkajs';
import { Pool } from 'pg';

function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

async function main(): Promise<void> {
  const from = setting('PEER_FROM');
  const to = process.env.PEER_TO;
  const table = setting('PEER_TABLE');
  if (!/^[a-z0-9_]+$/.test(table)) throw new Error(`PEER_TABLE ${table}: a plain identifier`);
  const kafka = new Kafka({ clientId: `peer-${table}`, brokers: setting('PEER_BROKERS').split(','), logLevel: logLevel.WARN });
  const pool = new Pool({ connectionString: setting('PEER_DATABASE_URL'), max: 4 });
  // As Herald's bus produces: idempotent, acknowledged by all in-sync replicas.
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 5, allowAutoTopicCreation: false });
  const consumer = kafka.consumer({ groupId: setting('PEER_GROUP'), sessionTimeout: 10_000, maxWaitTimeInMs: 100 });
  await producer.connect();
  await consumer.connect();
  await consumer.subscribe({ topic: from, fromBeginning: true });
  // Batches handled and their messages, printed at the stop (warm-up included).
  let batches = 0;
  let messages = 0;
  consumer.on(consumer.events.GROUP_JOIN, () => process.stdout.write('peer stage ready\n'));
  await consumer.run({
    partitionsConsumedConcurrently: 4,
    eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
      if (batch.messages.length === 0) return;
      batches++;
      messages += batch.messages.length;
      const keys = batch.messages.map((m) => m.key?.toString() ?? '');
      const values = batch.messages.map((m) => m.value?.toString() ?? 'null');
      await pool.query(`INSERT INTO ${table} (id, body) SELECT * FROM unnest($1::text[], $2::jsonb[]) ON CONFLICT DO NOTHING`, [keys, values]);
      if (to) await producer.send({ topic: to, acks: -1, messages: batch.messages.map((m) => ({ key: m.key, value: m.value })) });
      resolveOffset(batch.messages[batch.messages.length - 1].offset);
      await heartbeat();
    },
  });
  const stop = (): void => {
    void (async () => {
      process.stdout.write(`peer stage batches ${batches} messages ${messages}\n`);
      await consumer.disconnect().catch(() => undefined);
      await producer.disconnect().catch(() => undefined);
      await pool.end().catch(() => undefined);
      process.exit(0);
    })();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`peer stage failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

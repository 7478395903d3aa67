// The flow bench's peer for issue 21's replica question: what a second replica costs on
// this machine for the plainest Kafka-and-Postgres pipeline, measured in the same run
// as Herald's rounds. Two stages, as Herald's engine and dispatcher are a pair: a relay
// (topic in -> rows -> topic mid) and a sink (topic mid -> rows), each a process of
// peer-pipe-stage.ts (kafkajs eachBatch, one INSERT per batch, one produce per batch,
// offsets committed by kafkajs). A round starts 1 or 2 of each, warms them up, then
// publishes N records at once and meters the CPU of the stage processes (and of Postgres
// and the broker) until the sink has stored all N: the same shape as Herald's rounds, so
// the 2-vs-1 ratio of CPU per item is the machine's and the clients' share of Herald's.

import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { RunningProcess, heraldEnv, startProcess } from '@herald/testing';
import { BenchError, cpuSecondsMeter, kafkaPids, loadAverage, postgresPids } from '../shared/bench-kit';

export interface PeerRound {
  readonly replicas: number;
  readonly itemsPerS: number;
  /** Messages per eachBatch call of each stage (all replicas; the warm-up included). */
  readonly messagesPerBatch: { relay: number; sink: number };
  /** CPU ms per item: the stage processes (all replicas), Postgres, the broker. */
  readonly cpuMsPerItem: { stages: number; postgres: number; kafka: number };
  readonly load: string;
}

export interface PeerSetup {
  readonly brokers: string;
  readonly databaseUrl: string;
  readonly namespace: string;
  readonly partitions: number;
  readonly items: number;
  readonly warmup: number;
  readonly settleSeconds: number;
  readonly timeoutMs: number;
  readonly progress: (line: string) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A record about the size of a trigger chunk with one recipient. */
const recordValue = (tag: string, n: number): string => JSON.stringify({ n, tag, recipient: `user-${n % 500}`, data: { pad: 'x'.repeat(240) } });

export async function peerPipeRound(setup: PeerSetup, round: number, replicas: number): Promise<PeerRound> {
  const { progress } = setup;
  const label = `peer round ${round} (${replicas} replica${replicas > 1 ? 's' : ''} of each stage)`;
  const name = `peer_r${round}_${randomBytes(3).toString('hex')}`;
  const topics = { in: `${setup.namespace}.${name}.in`, mid: `${setup.namespace}.${name}.mid` };
  const tables = { relayed: `${name}_relayed`, sunk: `${name}_sunk` };
  const kafka = new Kafka({ clientId: 'herald-bench-flow-peer', brokers: setup.brokers.split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 5, allowAutoTopicCreation: false });
  const db = new Client({ connectionString: setup.databaseUrl });
  const stages: RunningProcess[] = [];
  await Promise.all([admin.connect(), producer.connect(), db.connect()]);
  try {
    await admin.createTopics({ waitForLeaders: true, topics: [topics.in, topics.mid].map((topic) => ({ topic, numPartitions: setup.partitions, replicationFactor: 1 })) });
    for (const table of Object.values(tables)) {
      await db.query(`CREATE TABLE ${table} (id text PRIMARY KEY, body jsonb NOT NULL, stored_at timestamptz NOT NULL DEFAULT clock_timestamp())`);
    }
    const start = (stage: 'relay' | 'sink', i: number): RunningProcess =>
      startProcess(
        `peer-${stage}#${i + 1}`,
        process.execPath,
        ['-r', './tools/register.js', 'bench/flow/peer-pipe-stage.ts'],
        heraldEnv({
          PEER_BROKERS: setup.brokers,
          PEER_DATABASE_URL: setup.databaseUrl,
          PEER_GROUP: `${setup.namespace}.${name}.${stage}`,
          PEER_FROM: stage === 'relay' ? topics.in : topics.mid,
          ...(stage === 'relay' ? { PEER_TO: topics.mid } : {}),
          PEER_TABLE: stage === 'relay' ? tables.relayed : tables.sunk,
        }),
      );
    for (let i = 0; i < replicas; i++) stages.push(start('relay', i), start('sink', i));
    const deadline = Date.now() + setup.timeoutMs;
    const untilTrue = async (test: () => Promise<boolean> | boolean, what: string): Promise<void> => {
      while (!(await test())) {
        const failed = stages.find((s) => s.child.exitCode !== null);
        if (failed) throw new BenchError(`${label}: ${failed.name} exited: ${failed.output().slice(-600)}`);
        if (Date.now() > deadline) throw new BenchError(`${label}: timed out waiting for ${what}`);
        await sleep(100);
      }
    };
    await untilTrue(() => stages.every((s) => s.output().includes('peer stage ready')), 'the stages to join their groups');
    const sunk = async (): Promise<number> => Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${tables.sunk}`)).rows[0].n);
    const publish = async (tag: string, count: number): Promise<void> => {
      const chunks: number[][] = [];
      for (let from = 0; from < count; from += 1_000) chunks.push(Array.from({ length: Math.min(1_000, count - from) }, (_, i) => from + i));
      let next = 0;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (next < chunks.length) {
            const chunk = chunks[next++];
            await producer.send({ topic: topics.in, acks: -1, messages: chunk.map((n) => ({ key: `${tag}${n}`, value: recordValue(tag, n) })) });
          }
        }),
      );
    };
    if (setup.warmup > 0) {
      await publish('w-', setup.warmup);
      await untilTrue(async () => (await sunk()) >= setup.warmup, 'the warm-up');
    }
    // Every group's rebalances over (a second replica's join), as for Herald's rounds.
    await sleep(setup.settleSeconds * 1000);
    const load = loadAverage();
    const meter = cpuSecondsMeter({
      stages: () => stages.flatMap((s) => (s.child.pid ? [s.child.pid] : [])),
      postgres: postgresPids,
      kafka: kafkaPids,
    });
    const publishedAt = performance.timeOrigin + performance.now();
    await publish('m-', setup.items);
    await untilTrue(async () => (await sunk()) >= setup.warmup + setup.items, `${setup.items} items`);
    const cpu = meter();
    const lastAt = Number((await db.query<{ at: Date }>(`SELECT max(stored_at) AS at FROM ${tables.sunk}`)).rows[0].at.getTime());
    const seconds = (lastAt - publishedAt) / 1000;
    const per = (s: number): number => (s * 1000) / setup.items;
    await Promise.all(stages.map((s) => s.stop('SIGTERM')));
    const perBatch = (stage: string): number => {
      let batches = 0;
      let messages = 0;
      for (const s of stages.filter((s) => s.name.startsWith(`peer-${stage}#`))) {
        const counts = /peer stage batches (\d+) messages (\d+)/.exec(s.output());
        batches += Number(counts?.[1] ?? 0);
        messages += Number(counts?.[2] ?? 0);
      }
      return messages / batches;
    };
    const result: PeerRound = {
      replicas,
      messagesPerBatch: { relay: perBatch('relay'), sink: perBatch('sink') },
      itemsPerS: setup.items / seconds,
      cpuMsPerItem: { stages: per(cpu.stages), postgres: per(cpu.postgres), kafka: per(cpu.kafka) },
      load,
    };
    progress(
      `${label}: ${setup.items} items in ${seconds.toFixed(1)} s = ${result.itemsPerS.toFixed(0)}/s; messages per batch: relay ${result.messagesPerBatch.relay.toFixed(1)}, sink ${result.messagesPerBatch.sink.toFixed(1)}; CPU ms per item: stages ${result.cpuMsPerItem.stages.toFixed(3)}, ` +
        `postgres ${result.cpuMsPerItem.postgres.toFixed(3)}, kafka ${result.cpuMsPerItem.kafka.toFixed(3)}; load ${load}`,
    );
    return result;
  } finally {
    await Promise.all(stages.map((s) => s.stop('SIGTERM')));
    for (const table of Object.values(tables)) await db.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await admin.deleteTopics({ topics: [topics.in, topics.mid] }).catch(() => undefined);
    await Promise.all([admin.disconnect(), producer.disconnect(), db.end()].map((p) => p.catch(() => undefined)));
  }
}

/**
 * One transaction's writes sent three ways, alternated on the same connection: as an
 * ordinary TypeORM transaction (BEGIN, each statement, COMMIT: a round trip each), as a
 * `StatementBatch` (the same statements pipelined with bound parameters: one round trip),
 * and as the StatementBatch before issue 40 (one simple-protocol query with the parameters
 * inlined as literals: `inlined-statement-batch.ts`). Each
 * statement inserts `--runs` rows of about 1 KB from one JSON document, as the engine's
 * append does per table. Prints, per transaction, the CPU of the bench process (the
 * driver), the CPU of the Postgres backend that ran it, and the wall time.
 *
 *   node -r ./tools/register.js bench/database/round-trips.bench.ts [--runs 12] [--statements 5] [--transactions 400] [--rounds 2]
 *
 * Environment: HERALD_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres;
 * a temporary database is created on it and dropped at the end).
 */
import { randomUUID } from 'node:crypto';
import { SqlWriter, StatementBatch, createServiceDataSource } from '@herald/database';
import { createTemporaryDatabase } from '@herald/testing';
import { CLOCK_TICKS, numberOption, processTicks, runBenchMain } from '../shared/bench-kit';
import { InlinedStatementBatch } from './inlined-statement-batch';


const runsPerStatement = numberOption('--runs', 12);
const statements = numberOption('--statements', 5);
const transactions = numberOption('--transactions', 400);
const rounds = numberOption('--rounds', 2);
const serverUrl = process.env['HERALD_BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SCHEMA = 'bench_round_trips';

/** A row of about 1 KB with the nesting and quoting of a run's event. */
function rowsDocument(): string {
  return JSON.stringify(
    Array.from({ length: runsPerStatement }, (_, i) => ({
      id: randomUUID(),
      doc: { type: 'delivery.requested.v1', run_id: randomUUID(), node: { name: 'inbox', label: 'Send "inbox"' }, data: { order: i, note: 'a\\b', items: ['x', 'y'] }, pad: 'p'.repeat(800) },
    })),
  );
}

async function writeAll(tx: SqlWriter): Promise<void> {
  for (let t = 1; t <= statements; t += 1) {
    await tx.query(`INSERT INTO ${SCHEMA}.t${t} (id, doc) SELECT r->>'id', r->'doc' FROM jsonb_array_elements($1::jsonb) AS r`, [rowsDocument()]);
  }
}

async function main(): Promise<number> {
  const database = await createTemporaryDatabase(serverUrl, 'herald_bench_round_trips');
  // One connection, so both cases run on the same backend, whose CPU is read.
  const source = createServiceDataSource({ url: database.url, schema: SCHEMA, migrations: [], applicationName: 'herald-bench-round-trips', poolSize: 1 });
  try {
    await source.initialize();
    await source.query(`CREATE SCHEMA ${SCHEMA}`);
    for (let t = 1; t <= statements; t += 1) await source.query(`CREATE TABLE ${SCHEMA}.t${t} (id text PRIMARY KEY, doc jsonb NOT NULL)`);
    const [{ pid }] = (await source.query('SELECT pg_backend_pid() AS pid')) as Array<{ pid: number }>;
    const cases: Array<[string, () => Promise<void>]> = [
      [`TypeORM transaction (${statements + 2} round trips)`, () => source.transaction((tx) => writeAll(tx))],
      [
        'StatementBatch, pipelined and bound (1 round trip)',
        async () => {
          const batch = new StatementBatch();
          await writeAll(batch);
          await batch.run(source);
        },
      ],
      [
        'before issue 40: literals inlined in one query (1 round trip)',
        async () => {
          const batch = new InlinedStatementBatch();
          await writeAll(batch);
          await batch.run(source);
        },
      ],
    ];
    process.stdout.write(`${statements} statements of ${runsPerStatement} rows each per transaction, ${transactions} transactions per case and round\n\n`);
    process.stdout.write('| round | case | driver CPU µs | Postgres CPU µs | wall µs |\n| ---: | --- | ---: | ---: | ---: |\n');
    for (let round = 1; round <= rounds; round += 1) {
      for (const [name, write] of cases) {
        for (let i = 0; i < 50; i += 1) await write(); // warm-up: JIT, plans, buffers
        const cpu = process.cpuUsage();
        const postgresTicks = processTicks(pid) ?? 0;
        const started = process.hrtime.bigint();
        for (let i = 0; i < transactions; i += 1) await write();
        const wallUs = Number(process.hrtime.bigint() - started) / 1_000;
        const used = process.cpuUsage(cpu);
        const postgresUs = (((processTicks(pid) ?? 0) - postgresTicks) / CLOCK_TICKS) * 1e6;
        const per = (us: number): string => (us / transactions).toFixed(0);
        process.stdout.write(`| ${round} | ${name} | ${per(used.user + used.system)} | ${per(postgresUs)} | ${per(wallUs)} |\n`);
      }
      for (let t = 1; t <= statements; t += 1) await source.query(`TRUNCATE ${SCHEMA}.t${t}`);
    }
    return 0;
  } finally {
    if (source.isInitialized) await source.destroy();
    await database.drop();
  }
}

runBenchMain('round-trips', main);

/**
 * Writing outbox rows: `writeOutbox` (one JSON document for the whole batch) against the
 * statement it replaced (a `text[]` parameter per column, each value escaped by the
 * driver and unescaped by Postgres), alternated on the same table. Each row is a
 * delivery command of about 1 KB, as the engine writes one per delivery. Prints the CPU
 * per row of the bench process (the driver) and of the Postgres backend that ran the
 * statements, and the wall time per row.
 *
 *   node -r ./tools/register.js bench/outbox/outbox-write.bench.ts [--rows 300] [--batches 60] [--rounds 2]
 *
 * Environment: HERALD_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres;
 * a temporary database is created on it and dropped at the end).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServiceDataSource, migrateSchema } from '@herald/database';
import { OutboxMessage, eventStoreMigrations, eventStoreTables, writeOutbox } from '@herald/event-store';
import { createTemporaryDatabase } from '@herald/testing';
import { EntityManager } from 'typeorm';
import { CLOCK_TICKS, numberOption, processTicks, runBenchMain } from '../shared/bench-kit';


const rowsPerBatch = numberOption('--rows', 300);
const batches = numberOption('--batches', 60);
const rounds = numberOption('--rounds', 2);
const serverUrl = process.env['HERALD_BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SCHEMA = 'engine';
const OUTBOX = eventStoreTables(SCHEMA).outbox;

/** A delivery command's envelope, with the quotes and nesting of a real one. */
function deliveryCommand(i: number): string {
  return JSON.stringify({
    type: 'delivery.requested.v1',
    version: 1,
    message_id: randomUUID(),
    workspace_id: randomUUID(),
    occurred_at: new Date().toISOString(),
    payload: {
      delivery_id: randomUUID(),
      run_id: randomUUID(),
      channel: 'inbox',
      workflow: { slug: 'bench-inbox', version: 3, name: 'Bench "inbox" flow' },
      recipient: { kind: 'user', distinct_id: `user-${i}`, channels: { inbox: [`user-${i}`] }, properties: { name: `User ${i}`, plan: 'pro', tags: ['a', 'b', 'c'] } },
      template: { slug: 'bench', variant: 'default', locale: 'en', subject: 'Hello {{name}}', body: `Your order "#${i}" shipped; see <a href="https://example.com/o/${i}">here</a>.` },
      render_data: { name: `User ${i}`, order: { id: i, items: [{ sku: 'x1', qty: 2, title: 'A "quoted" thing' }, { sku: 'y2', qty: 1, title: 'Another\nline' }], total: 42.5 } },
      tenant_id: 'default',
      category: 'transactional',
    },
  });
}

/** The statement `writeOutbox` used before: a `text[]` / `jsonb[]` parameter per column. */
async function writeOutboxAsArrays(tx: EntityManager, messages: readonly OutboxMessage[]): Promise<void> {
  await tx.query(
    `INSERT INTO ${OUTBOX} (message_id, topic, key, value, headers)
     SELECT m.message_id, m.topic, m.key, m.value, m.headers
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[]) WITH ORDINALITY AS m(message_id, topic, key, value, headers, ord)
      ORDER BY m.ord`,
    [
      messages.map((m) => m.messageId),
      messages.map((m) => m.topic),
      messages.map((m) => m.key),
      messages.map((m) => m.value),
      messages.map((m) => JSON.stringify(m.headers ?? {})),
    ],
  );
}

async function main(): Promise<number> {
  const database = await createTemporaryDatabase(serverUrl, 'herald_bench_outbox');
  const source = createServiceDataSource({ url: database.url, schema: SCHEMA, migrations: eventStoreMigrations(SCHEMA), applicationName: 'herald-bench-outbox', poolSize: 2 });
  try {
    await source.initialize();
    await migrateSchema(source, SCHEMA);
    const runner = source.createQueryRunner();
    const [{ pid }] = (await runner.query('SELECT pg_backend_pid() AS pid')) as Array<{ pid: number }>;
    const tx = runner.manager;
    const messages: OutboxMessage[] = Array.from({ length: rowsPerBatch }, (_, i) => ({
      messageId: randomUUID(),
      topic: 'herald.notify.delivery.inbox.v1',
      key: `workspace:user-${i}`,
      value: deliveryCommand(i),
      headers: { traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01` },
    }));
    // A message id is unique among pending rows: each statement of a run of 10 (the table
    // is emptied between runs) writes copies under ids of their own, made before timing.
    const copies = Array.from({ length: 10 }, () => messages.map((m) => ({ ...m, messageId: randomUUID() })));
    let statement = 0;
    const next = (): OutboxMessage[] => copies[statement++ % copies.length];
    const cases: Array<[string, () => Promise<void>]> = [
      ['text[] per column (before)', () => writeOutboxAsArrays(tx, next())],
      ['one JSON document (writeOutbox)', () => writeOutbox(tx, OUTBOX, next())],
    ];
    process.stdout.write(`${rowsPerBatch} rows of ${messages[0].value.length} bytes per statement, ${batches} statements per case and round\n\n`);
    process.stdout.write('| round | case | driver CPU µs/row | Postgres CPU µs/row | wall µs/row |\n| ---: | --- | ---: | ---: | ---: |\n');
    for (let round = 1; round <= rounds; round += 1) {
      for (const [name, write] of cases) {
        for (let i = 0; i < 5; i += 1) await write(); // warm-up: plans, buffers
        await runner.query(`TRUNCATE ${OUTBOX}`);
        statement = 0;
        const cpu = process.cpuUsage();
        const postgresTicks = processTicks(pid) ?? 0;
        const started = process.hrtime.bigint();
        for (let i = 1; i <= batches; i += 1) {
          await write();
          if (i % 10 === 0) await runner.query(`TRUNCATE ${OUTBOX}`);
        }
        const wallUs = Number(process.hrtime.bigint() - started) / 1_000;
        const used = process.cpuUsage(cpu);
        const postgresUs = (((processTicks(pid) ?? 0) - postgresTicks) / CLOCK_TICKS) * 1e6;
        const per = (us: number): string => (us / (batches * rowsPerBatch)).toFixed(1);
        process.stdout.write(`| ${round} | ${name} | ${per(used.user + used.system)} | ${per(postgresUs)} | ${per(wallUs)} |\n`);
      }
    }
    await runner.release();
    return 0;
  } finally {
    if (source.isInitialized) await source.destroy();
    await database.drop();
  }
}

runBenchMain('outbox-write', main);

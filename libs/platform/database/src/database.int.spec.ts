import { databaseTargets, describeTarget, uniqueName } from '@herald/testing';
import { openTestDatabase, TestDatabase } from './testing/test-database';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { EmbeddedPostgres } from './embedded-postgres';
import { checkDatabase, migrateSchema } from './migrate';
import { createServiceDataSource } from './service-data-source';

function notesMigration(schema: string): new () => MigrationInterface {
  return class CreateNotes1700000000000 implements MigrationInterface {
    name = 'CreateNotes1700000000000';
    async up(runner: QueryRunner): Promise<void> {
      await runner.query(`CREATE TABLE "${schema}".notes (id bigint PRIMARY KEY, body text NOT NULL)`);
    }
    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`DROP TABLE "${schema}".notes`);
    }
  };
}

describe.each(databaseTargets())('service data sources on $kind', (target) => {
  let db: TestDatabase;
  const schemas: string[] = [];
  const sources: DataSource[] = [];

  beforeAll(async () => {
    db = await openTestDatabase(target);
  });
  afterAll(async () => {
    await Promise.all(sources.map((s) => s.destroy()));
    await db.dispose(schemas);
  });

  async function dataSourceFor(schema: string): Promise<DataSource> {
    const source = createServiceDataSource({
      url: db.url,
      schema,
      migrations: [notesMigration(schema)],
      applicationName: 'herald-test',
      poolSize: 4,
    });
    await source.initialize();
    sources.push(source);
    return source;
  }

  it(`migrates a service schema on ${describeTarget(target)}, once`, async () => {
    const schema = uniqueName('svc');
    schemas.push(schema);
    const source = await dataSourceFor(schema);

    expect(await migrateSchema(source, schema)).toEqual({ schema, applied: ['CreateNotes1700000000000'] });
    expect(await migrateSchema(source, schema)).toEqual({ schema, applied: [] });

    await source.query(`INSERT INTO "${schema}".notes (id, body) VALUES (1, 'hello')`);
    expect(await source.query(`SELECT body FROM "${schema}".notes`)).toEqual([{ body: 'hello' }]);
    await expect(checkDatabase(source)).resolves.toBeUndefined();
  });

  // Postgres only: PGlite is built without a JIT provider, and its wire server answers the startup itself.
  if (target.kind === 'postgres') {
  it('opens every session with JIT off, so a large cost estimate never compiles a short statement', async () => {
    const schema = uniqueName('svc');
    schemas.push(schema);
    const source = await dataSourceFor(schema);
    // Several at once, so that more than one pooled connection answers.
    const answers = await Promise.all(Array.from({ length: 4 }, () => source.query<{ jit: string }[]>('SHOW jit')));
    expect(answers.map((rows) => rows[0].jit)).toEqual(['off', 'off', 'off', 'off']);
  });
  }

  it('lets exactly one of several concurrent starters apply a migration', async () => {
    const schema = uniqueName('svc');
    schemas.push(schema);
    const replicas = await Promise.all([dataSourceFor(schema), dataSourceFor(schema), dataSourceFor(schema)]);

    const reports = await Promise.all(replicas.map((r) => migrateSchema(r, schema)));

    expect(reports.flatMap((r) => r.applied)).toEqual(['CreateNotes1700000000000']);
  });

  it('keeps transactions of concurrent connections apart and supports SKIP LOCKED claims', async () => {
    const schema = uniqueName('svc');
    schemas.push(schema);
    const source = await dataSourceFor(schema);
    await migrateSchema(source, schema);
    await source.query(
      `INSERT INTO "${schema}".notes (id, body) SELECT g, 'due' FROM generate_series(1, 20) g`,
    );

    const claim = (): Promise<number[]> =>
      source.transaction(async (tx) => {
        const rows: Array<{ id: string }> = await tx.query(
          `SELECT id FROM "${schema}".notes WHERE body = 'due' ORDER BY id LIMIT 5 FOR UPDATE SKIP LOCKED`,
        );
        const ids = rows.map((r) => Number(r.id));
        await tx.query(`UPDATE "${schema}".notes SET body = 'claimed' WHERE id = ANY($1)`, [ids]);
        return ids;
      });
    const claims = await Promise.all([claim(), claim(), claim(), claim()]);

    const all = claims.flat().sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('keeps concurrent parameterised queries and transactions of many connections apart', async () => {
    const pool = new Pool({ connectionString: db.url, max: 12 });
    try {
      const results = await Promise.all(
        Array.from({ length: 300 }, async (_, i) => {
          if (i % 3 === 0) {
            const { rows } = await pool.query<{ n: number }>('SELECT $1::int + $2::int AS n', [i, 1]);
            return rows[0].n === i + 1;
          }
          if (i % 3 === 1) {
            const { rows } = await pool.query<{ t: string }>('SELECT $1::text AS t', [`v${i}`]);
            return rows[0].t === `v${i}`;
          }
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            const { rows } = await client.query<{ a: string; b: number }>('SELECT $1::text AS a, $2::int AS b', [`t${i}`, i]);
            await client.query('COMMIT');
            return rows[0].a === `t${i}` && rows[0].b === i;
          } finally {
            client.release();
          }
        }),
      );
      expect(results.filter((ok) => !ok)).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  it('fails loudly on a rolled-back transaction without leaking its writes', async () => {
    const schema = uniqueName('svc');
    schemas.push(schema);
    const source = await dataSourceFor(schema);
    await migrateSchema(source, schema);

    await expect(
      source.transaction(async (tx) => {
        await tx.query(`INSERT INTO "${schema}".notes (id, body) VALUES (7, 'doomed')`);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');

    expect(await source.query(`SELECT count(*)::int AS n FROM "${schema}".notes`)).toEqual([{ n: 0 }]);
  });
});

describe('embedded Postgres server', () => {
  it('rolls back the transaction of a client that disconnects, and lets the others go on', async () => {
    const embedded = await EmbeddedPostgres.start();
    const setup = new Client({ connectionString: embedded.url });
    await setup.connect();
    await setup.query('CREATE TABLE t (n int)');
    const leaver = new Client({ connectionString: embedded.url });
    await leaver.connect();
    leaver.on('error', () => undefined);
    await leaver.query('BEGIN');
    await leaver.query('INSERT INTO t VALUES (1)');
    (leaver as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();

    expect((await setup.query('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 0 }]);
    await setup.end();
    await embedded.stop();
  });

  it('stops cleanly while clients are still connected, even mid-transaction', async () => {
    const embedded = await EmbeddedPostgres.start();
    const client = new Client({ connectionString: embedded.url });
    client.on('error', () => undefined);
    await client.connect();
    await client.query('BEGIN');
    await expect(embedded.stop()).resolves.toBeUndefined();
    await client.end().catch(() => undefined);
  });

  it("sizes PGlite's page cache as asked, keeping PGlite's own start parameters", async () => {
    const embedded = await EmbeddedPostgres.start({ sharedBuffers: '16MB' });
    const client = new Client({ connectionString: embedded.url });
    await client.connect();
    const show = async (setting: string) => (await client.query(`SHOW ${setting}`)).rows[0][setting];
    expect([await show('shared_buffers'), await show('max_worker_processes'), await show('search_path')]).toEqual(['16MB', '0', 'public']);
    await client.end();
    await embedded.stop();
  });
});

describe('embedded Postgres data folder', () => {
  it('keeps data across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-pglite-'));
    try {
      const first = await EmbeddedPostgres.start({ dataDir: dir });
      const a = createServiceDataSource({ url: first.url, schema: 'keep', migrations: [notesMigration('keep')], applicationName: 't' });
      await a.initialize();
      await migrateSchema(a, 'keep');
      await a.query(`INSERT INTO keep.notes (id, body) VALUES (1, 'survives')`);
      await a.destroy();
      await first.stop();

      const second = await EmbeddedPostgres.start({ dataDir: dir });
      const b = createServiceDataSource({ url: second.url, schema: 'keep', migrations: [notesMigration('keep')], applicationName: 't' });
      await b.initialize();
      expect(await migrateSchema(b, 'keep')).toEqual({ schema: 'keep', applied: [] });
      expect(await b.query(`SELECT body FROM keep.notes`)).toEqual([{ body: 'survives' }]);
      await b.destroy();
      await second.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

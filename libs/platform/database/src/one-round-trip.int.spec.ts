import { databaseTargets, describeTarget, uniqueName } from '@herald/testing';
import { DataSource } from 'typeorm';
import { StatementBatch, readThenWrite } from './one-round-trip';
import { createServiceDataSource } from './service-data-source';
import { openTestDatabase, TestDatabase } from './testing/test-database';

describe.each(databaseTargets())('a transaction in one round trip on $kind', (target) => {
  let db: TestDatabase;
  let source: DataSource;
  const schema = uniqueName('batch');

  beforeAll(async () => {
    db = await openTestDatabase(target);
    source = createServiceDataSource({ url: db.url, schema, migrations: [], applicationName: 'herald-test', poolSize: 2 });
    await source.initialize();
    await source.query(`CREATE SCHEMA "${schema}"`);
    await source.query(`CREATE TABLE "${schema}".notes (id integer PRIMARY KEY, body text, tags text[], doc jsonb, at timestamptz, raw bytea)`);
  });
  afterAll(async () => {
    await source?.destroy();
    await db.dispose([schema]);
  });

  it(`writes every value as a single bound statement does, on ${describeTarget(target)}`, async () => {
    const at = new Date('2026-11-29T17:55:00.123Z');
    const values = [1, "quote ' and backslash \\ and $1 and é ☃ and $v$, $v1$ and $$, ending $v", ['a', 'b"c', 'd\\e', "f'g", '', "$v$'"], { nested: { q: "'", b: '\\', tag: "$v$'$v" }, n: [1, null] }, at, Buffer.from([0, 1, 254, 255])];
    const insert = `INSERT INTO "${schema}".notes (id, body, tags, doc, at, raw) VALUES ($1, $2, $3::text[], $4::jsonb, $5, $6)`;
    const batch = new StatementBatch();
    await batch.query(insert, values);
    await batch.run(source);
    await source.query(insert, [2, ...values.slice(1)]);
    const rows: Array<Record<string, unknown>> = await source.query(`SELECT id, body, tags, doc, at, raw FROM "${schema}".notes WHERE id IN (1, 2) ORDER BY id`);
    expect(rows).toHaveLength(2);
    const { id: _one, ...batched } = rows[0];
    const { id: _two, ...single } = rows[1];
    expect(batched).toEqual(single);
    expect(batched).toEqual({ body: values[1], tags: values[2], doc: values[3], at, raw: values[5] });
  });

  it('refuses text holding a NUL with the error Postgres gives it as a bound parameter, and writes nothing', async () => {
    const insert = `INSERT INTO "${schema}".notes (id, body) VALUES ($1, $2)`;
    await expect(source.query(insert, [20, 'a\u0000b'])).rejects.toMatchObject({ code: '22021' });
    const batch = new StatementBatch();
    await batch.query(insert, [21, 'fine']);
    await batch.query(insert, [22, 'a\u0000b']);
    await expect(batch.run(source)).rejects.toMatchObject({ code: '22021' });
    expect(await source.query(`SELECT id FROM "${schema}".notes WHERE id IN (20, 21, 22)`)).toEqual([]);
  });

  it('writes all of its statements or none, each seeing what the ones before it wrote', async () => {
    const batch = new StatementBatch();
    await batch.query(`INSERT INTO "${schema}".notes (id, body) VALUES ($1, $2)`, [10, 'first']);
    await batch.query(`UPDATE "${schema}".notes SET body = body || $2 WHERE id = $1`, [10, ', then updated']);
    expect(batch.length).toBe(2);
    await batch.run(source);
    expect(await source.query(`SELECT body FROM "${schema}".notes WHERE id = 10`)).toEqual([{ body: 'first, then updated' }]);

    const failing = new StatementBatch();
    await failing.query(`INSERT INTO "${schema}".notes (id, body) VALUES ($1, $2)`, [11, 'rolled back']);
    await failing.query(`INSERT INTO "${schema}".notes (id, body) VALUES ($1, $2)`, [10, 'a duplicate id']);
    await expect(failing.run(source)).rejects.toMatchObject({ code: '23505' });
    expect(await source.query(`SELECT id FROM "${schema}".notes WHERE id = 11`)).toEqual([]);
    // The connection went back to the pool usable: the next transaction commits.
    const next = new StatementBatch();
    await next.query(`INSERT INTO "${schema}".notes (id, body) VALUES ($1, $2)`, [12, 'after']);
    await next.run(source);
    expect(await source.query(`SELECT body FROM "${schema}".notes WHERE id = 12`)).toEqual([{ body: 'after' }]);
  });

  it('reads then writes what depends on the read in one transaction: both committed, or neither when a write or the caller fails', async () => {
    const insert = `INSERT INTO "${schema}".notes (id, body) SELECT i, 'stored ' || i FROM unnest($1::int[]) AS i RETURNING id, body`;
    const stored = await readThenWrite<{ id: number; body: string }, number>(source, { sql: insert, parameters: [[30, 31]] }, async (rows, writes) => {
      for (const row of rows) await writes.query(`INSERT INTO "${schema}".notes (id, body) VALUES ($1, $2)`, [row.id + 100, `${row.body}, then announced`]);
      return rows.length;
    });
    expect(stored).toBe(2);
    const bodies = async (ids: number[]): Promise<string[]> =>
      ((await source.query(`SELECT body FROM "${schema}".notes WHERE id = ANY($1::int[]) ORDER BY id`, [ids])) as Array<{ body: string }>).map((r) => r.body);
    expect(await bodies([30, 31, 130, 131])).toEqual(['stored 30', 'stored 31', 'stored 30, then announced', 'stored 31, then announced']);

    // A write that fails (a duplicate id) takes the read's insert with it.
    await expect(
      readThenWrite(source, { sql: insert, parameters: [[32]] }, async (_rows, writes) => {
        await writes.query(`INSERT INTO "${schema}".notes (id, body) VALUES ($1, $2)`, [130, 'a duplicate id']);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    // So does a caller that fails between the two round trips.
    await expect(
      readThenWrite(source, { sql: insert, parameters: [[33]] }, async () => {
        throw new Error('the caller gave up');
      }),
    ).rejects.toThrow('the caller gave up');
    // And a first statement that fails leaves nothing open.
    await expect(readThenWrite(source, { sql: insert, parameters: [[30]] }, async () => undefined)).rejects.toMatchObject({ code: '23505' });
    expect(await bodies([32, 33])).toEqual([]);
    expect(await readThenWrite(source, { sql: insert, parameters: [[34]] }, async (rows) => rows)).toEqual([{ id: 34, body: 'stored 34' }]);
  });

  it('sends a whole transaction before it reads any answer: one round trip', async () => {
    // One connection, so the batch runs on the connection whose socket is watched.
    const single = createServiceDataSource({ url: db.url, schema, migrations: [], applicationName: 'herald-test', poolSize: 1 });
    await single.initialize();
    try {
      const runner = single.createQueryRunner();
      const socket = ((await runner.connect()) as { connection: { stream: NodeJS.WritableStream & NodeJS.EventEmitter } }).connection.stream;
      await runner.release();
      const traffic: Array<'write' | 'read'> = [];
      const write = socket.write.bind(socket);
      socket.write = ((...args: Parameters<typeof write>) => {
        traffic.push('write');
        return write(...args);
      }) as typeof socket.write;
      const onData = (): void => void traffic.push('read');
      socket.on('data', onData);

      const batch = new StatementBatch();
      for (const id of [50, 51, 52]) await batch.query(`INSERT INTO "${schema}".notes (id, body) VALUES ($1, $2)`, [id, `note ${id}`]);
      await batch.run(single);
      socket.off('data', onData);

      // Every message of BEGIN, the three inserts and COMMIT is written before the first answer arrives.
      expect(traffic.indexOf('read')).toBeGreaterThan(0);
      expect(traffic.slice(traffic.indexOf('read'))).not.toContain('write');
      expect(await single.query(`SELECT count(*)::int AS n FROM "${schema}".notes WHERE id IN (50, 51, 52)`)).toEqual([{ n: 3 }]);
    } finally {
      await single.destroy();
    }
  });
});

import { DataSource, QueryRunner } from 'typeorm';

/**
 * What writes SQL inside a transaction and never reads what it wrote back: a TypeORM
 * `EntityManager`, or a `StatementBatch` that sends it later.
 */
export interface SqlWriter {
  query(sql: string, parameters?: readonly unknown[]): Promise<unknown>;
}

/** A statement and its bound parameters. */
export interface Statement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/**
 * The statements of one transaction, sent to Postgres in one round trip.
 *
 * Why: on the 2-vCPU VMs Herald is measured on, a round trip to Postgres costs about as
 * much as a small statement's work: each is a write that wakes the backend and a read
 * that wakes the client again. Five statements of 12 rows of about 1 KB took 5.2-5.4 ms,
 * 2.3-2.4 ms of the client's CPU and 2.6-2.8 ms of the backend's as a TypeORM
 * transaction (seven round trips), and about 4 ms in one round trip
 * (`bench/database/round-trips.bench.ts`; bench/RESULTS.md).
 *
 * How: node-postgres's pipeline mode (`pipeline: true` on every service's pool, see
 * createServiceDataSource). BEGIN, each statement with its parameters bound (the
 * extended protocol: Postgres parses the text, the values never enter it), and COMMIT
 * are written at once, without waiting for each answer; Postgres runs them in order. A
 * failing statement aborts the transaction, so the ones after it fail too and COMMIT
 * rolls back: all of them or none, and `run` rejects with the first failure. Each
 * statement sees what the ones before it wrote, as in any transaction.
 *
 * Writers only: `query` records the statement and resolves with no rows.
 */
export class StatementBatch implements SqlWriter {
  private readonly statements: Statement[] = [];

  async query(sql: string, parameters: readonly unknown[] = []): Promise<unknown[]> {
    this.statements.push({ sql, parameters });
    return [];
  }

  get length(): number {
    return this.statements.length;
  }

  /** Runs the statements as one transaction, in one round trip; rejects with Postgres's error, having written nothing. */
  async run(dataSource: DataSource): Promise<void> {
    if (this.statements.length === 0) return;
    const runner = dataSource.createQueryRunner();
    try {
      await pipelined(await connectionOf(runner), [BEGIN, ...this.statements, COMMIT]);
    } finally {
      await runner.release();
    }
  }

  /** The statements, for a caller that sends them with others (readThenWrite). */
  drain(): readonly Statement[] {
    return this.statements.splice(0);
  }
}

/**
 * A transaction whose writes depend on what its first statement returns (the rows an
 * insert stored, with the ids and sequence numbers Postgres gave them), in two round
 * trips instead of one per statement plus BEGIN and COMMIT: BEGIN goes with the first
 * statement, and COMMIT with the writes `then` records on its `StatementBatch`. A
 * failure anywhere (`then` included) rolls the whole transaction back and rejects with
 * it. Resolves with what `then` resolved with.
 */
export async function readThenWrite<Row, T>(
  dataSource: DataSource,
  first: { readonly sql: string; readonly parameters?: readonly unknown[] },
  then: (rows: Row[], writes: StatementBatch) => Promise<T>,
): Promise<T> {
  const runner = dataSource.createQueryRunner();
  let open = false;
  try {
    const connection = await connectionOf(runner);
    open = true;
    const [, rows] = await pipelined(connection, [BEGIN, { sql: first.sql, parameters: first.parameters ?? [] }]);
    const writes = new StatementBatch();
    const result = await then(rows as Row[], writes);
    // After a failed write the transaction is aborted, and COMMIT rolls it back.
    await pipelined(connection, [...writes.drain(), COMMIT]);
    open = false;
    return result;
  } finally {
    if (open) await runner.query('ROLLBACK').catch(() => undefined);
    await runner.release();
  }
}

export const BEGIN: Statement = { sql: 'BEGIN', parameters: [] };
export const COMMIT: Statement = { sql: 'COMMIT', parameters: [] };

/**
 * Sends the statements on the runner's connection in one round trip (BEGIN and COMMIT
 * are the caller's to include) and resolves with each one's rows; rejects with the
 * first failure.
 */
export async function inOneRoundTrip(runner: QueryRunner, statements: readonly Statement[]): Promise<unknown[][]> {
  return pipelined(await connectionOf(runner), statements);
}

/** The part of a node-postgres client used here. */
interface PgConnection {
  /** Set by `pipeline: true` in the pool's options: queries are written without waiting for the ones before. */
  readonly pipeline?: boolean;
  query(sql: string, parameters: readonly unknown[]): Promise<{ rows: unknown[] }>;
}

async function connectionOf(runner: QueryRunner): Promise<PgConnection> {
  return (await runner.connect()) as PgConnection;
}

/**
 * Sends the statements in order and resolves with each one's rows; rejects with the
 * first failure (the statements after it fail only because the transaction is aborted).
 * On a connection without pipeline mode (a pool configured elsewhere) each statement
 * waits for the one before: the same transaction, in more round trips.
 */
async function pipelined(connection: PgConnection, statements: readonly Statement[]): Promise<unknown[][]> {
  if (connection.pipeline !== true) {
    const rows: unknown[][] = [];
    try {
      for (const statement of statements) rows.push((await connection.query(statement.sql, statement.parameters)).rows);
    } catch (error) {
      // No COMMIT came to roll the failed transaction back: the connection goes back to its pool clean.
      await connection.query('ROLLBACK', []).catch(() => undefined);
      throw error;
    }
    return rows;
  }
  // Issued in one go, in order: node-postgres writes each as soon as it is queued.
  const settled = await Promise.allSettled(statements.map((statement) => connection.query(statement.sql, statement.parameters)));
  const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failure) throw failure.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<{ rows: unknown[] }>).value.rows);
}

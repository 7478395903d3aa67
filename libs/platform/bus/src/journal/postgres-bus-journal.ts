import { POSTGRES_SESSION_OPTIONS, createServiceDataSource, migrateSchema } from '@herald/database';
import { Pool } from 'pg';
import { MessageHeaders } from '../message-bus.port';
import { BUS_SCHEMA, busJournalMigrations } from './bus-journal.migrations';
import { BusJournal, GroupOffset, JournalRecord, JournalState, JournalTopic, PartitionEnd } from './bus-journal.port';

export interface PostgresBusJournalOptions {
  /** Postgres, or the embedded server: both speak the wire protocol. */
  readonly url: string;
  readonly applicationName?: string;
  readonly poolSize?: number;
}

const S = BUS_SCHEMA;

/**
 * The bus journal in the `bus` schema, through the `pg` driver. Every write is one
 * statement (rows passed as arrays through `unnest`), so nothing here opens a
 * transaction and a whole batch of records is one round trip.
 */
export class PostgresBusJournal implements BusJournal {
  private readonly pool: Pool;

  constructor(private readonly options: PostgresBusJournalOptions) {
    this.pool = new Pool({
      connectionString: options.url,
      application_name: options.applicationName ?? 'herald-bus',
      options: POSTGRES_SESSION_OPTIONS,
      max: options.poolSize ?? 4,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection that dies is replaced on next use, and the query that needs
    // it reports the failure; without a listener the pool's error would crash the process.
    this.pool.on('error', () => undefined);
  }

  async load(): Promise<JournalState> {
    await this.migrate();
    const topics = await this.pool.query<{ name: string; partitions: number }>(`SELECT name, partitions FROM ${S}.topics`);
    const ends = await this.pool.query<{ topic: string; partition: number; end_offset: string }>(PARTITION_ENDS);
    const offsets = await this.pool.query<{ group_id: string; topic: string; partition: number; next_offset: string }>(
      `SELECT group_id, topic, partition, next_offset FROM ${S}.group_offsets`,
    );
    return {
      topics: topics.rows,
      ends: ends.rows.map((r): PartitionEnd => ({ topic: r.topic, partition: r.partition, endOffset: Number(r.end_offset) })),
      groupOffsets: offsets.rows.map(
        (r): GroupOffset => ({ groupId: r.group_id, topic: r.topic, partition: r.partition, nextOffset: Number(r.next_offset) }),
      ),
    };
  }

  async addTopics(topics: readonly JournalTopic[]): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${S}.topics (name, partitions) SELECT * FROM unnest($1::text[], $2::int[]) ON CONFLICT (name) DO NOTHING`,
      [topics.map((t) => t.name), topics.map((t) => t.partitions)],
    );
  }

  async append(records: readonly JournalRecord[]): Promise<void> {
    // An append whose commit was lost with its connection may have landed anyway; its
    // caller saw a failure, so the next append reuses those offsets and overwrites it.
    await this.pool.query(
      `INSERT INTO ${S}.messages (topic, partition, "offset", key, value, headers, published_at)
       SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[], $4::text[], $5::bytea[], $6::jsonb[], $7::timestamptz[])
       ON CONFLICT (topic, partition, "offset") DO UPDATE SET key = EXCLUDED.key, value = EXCLUDED.value,
         headers = EXCLUDED.headers, published_at = EXCLUDED.published_at`,
      [
        records.map((r) => r.topic),
        records.map((r) => r.partition),
        records.map((r) => r.offset),
        records.map((r) => r.key),
        records.map((r) => r.value),
        records.map((r) => JSON.stringify(r.headers)),
        records.map((r) => new Date(r.timestamp)),
      ],
    );
  }

  async read(
    topic: string,
    partition: number,
    fromOffset: number,
    beforeOffset: number,
    limit: number,
  ): Promise<JournalRecord[]> {
    const result = await this.pool.query<MessageRow>(
      `SELECT "offset", key, value, headers, published_at FROM ${S}.messages
       WHERE topic = $1 AND partition = $2 AND "offset" >= $3 AND "offset" < $4
       ORDER BY "offset" LIMIT $5`,
      [topic, partition, fromOffset, beforeOffset, limit],
    );
    return result.rows.map((row) => ({
      topic,
      partition,
      offset: Number(row.offset),
      key: row.key,
      value: row.value,
      headers: row.headers,
      timestamp: row.published_at.getTime(),
    }));
  }

  async commitOffsets(offsets: readonly GroupOffset[]): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${S}.group_offsets (group_id, topic, partition, next_offset, committed_at)
       SELECT g, t, p, o, $5 FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[]) AS u(g, t, p, o)
       ON CONFLICT (group_id, topic, partition)
       DO UPDATE SET next_offset = EXCLUDED.next_offset, committed_at = EXCLUDED.committed_at`,
      [
        offsets.map((o) => o.groupId),
        offsets.map((o) => o.topic),
        offsets.map((o) => o.partition),
        offsets.map((o) => o.nextOffset),
        new Date(),
      ],
    );
  }

  async prune(cutoff: Date): Promise<number> {
    const result = await this.pool.query(
      `DELETE FROM ${S}.messages m
       WHERE m.published_at < $1
         AND NOT EXISTS (
           SELECT 1 FROM ${S}.group_offsets g
           WHERE g.topic = m.topic AND g.partition = m.partition
             AND g.next_offset <= m."offset")`,
      [cutoff],
    );
    return result.rowCount ?? 0;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** Through TypeORM, like every service schema: the same migration table and locking. */
  private async migrate(): Promise<void> {
    const dataSource = createServiceDataSource({
      url: this.options.url,
      schema: S,
      migrations: busJournalMigrations,
      applicationName: this.options.applicationName ?? 'herald-bus',
      // migrateSchema holds its lock on one connection and migrates on another.
      poolSize: 2,
    });
    await dataSource.initialize();
    try {
      await migrateSchema(dataSource, S);
    } finally {
      await dataSource.destroy();
    }
  }
}

interface MessageRow {
  readonly offset: string;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: MessageHeaders;
  readonly published_at: Date;
}

/**
 * Where each partition continues: past its last record, and never below an offset a
 * group committed (pruning may have emptied the partition, and reusing offsets a group
 * has passed would hide new records from it).
 */
const PARTITION_ENDS = `
  SELECT topic, partition, max(next_offset)::text AS end_offset FROM (
    SELECT topic, partition, max("offset") + 1 AS next_offset FROM ${S}.messages GROUP BY topic, partition
    UNION ALL
    SELECT topic, partition, max(next_offset) FROM ${S}.group_offsets GROUP BY topic, partition
  ) ends
  GROUP BY topic, partition`;

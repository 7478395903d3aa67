const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

/** The event store's tables in one schema, quoted and qualified for SQL. */
export interface EventStoreTables {
  readonly schema: string;
  readonly streamEvents: string;
  readonly streamSnapshots: string;
  readonly outbox: string;
  /** Outbox rows the relay set aside (see OutboxRelay). */
  readonly outboxParked: string;
  /** One row per slot of the outbox's keys, locked by the relay round serving it (see OutboxRelay). */
  readonly outboxSlots: string;
  readonly timers: string;
}

/**
 * Statements always name the schema: search_path is a session setting, and the
 * embedded multiplexer shares one session between all connections. Identifiers
 * cannot be bind parameters, so the name is checked before it is spliced in.
 */
export function eventStoreTables(schema: string): EventStoreTables {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}`);
  return {
    schema,
    streamEvents: `"${schema}".stream_events`,
    streamSnapshots: `"${schema}".stream_snapshots`,
    outbox: `"${schema}".outbox`,
    outboxParked: `"${schema}".outbox_parked`,
    outboxSlots: `"${schema}".outbox_slots`,
    timers: `"${schema}".timers`,
  };
}

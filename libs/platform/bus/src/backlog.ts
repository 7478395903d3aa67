/**
 * What a process's consumers still have to handle of what was published to them. The
 * in-process bus holds that backlog in this process's memory (and journal), so the
 * embedded ingest API bounds it: past the bound it answers 429 instead of accepting
 * more than the consumers drain. Kafka keeps its backlog on the broker's disk; it has none.
 */
export interface BusBacklog {
  /** Messages published and not yet handled, summed over every consumer group with members. */
  unconsumedMessages(): number;
  /** The same per consumer group, the groups that are behind only: which consumer is slow. */
  unconsumedByGroup(): ReadonlyMap<string, number>;
  /**
   * Bytes (keys, values, headers) of those messages: what the backlog weighs in memory,
   * which the message count alone does not say (a trigger chunk carries up to 100 recipients).
   */
  unconsumedBytes(): number;
}

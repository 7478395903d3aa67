import { logLevel as KafkaLogLevel } from 'kafkajs';

export type HeraldLogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The parts of a kafkajs log entry its level is decided from. */
export interface KafkaLogLine {
  readonly level: KafkaLogLevel;
  /** kafkajs's component: Connection, Consumer, Runner, Producer, RequestQueue, ... */
  readonly namespace: string;
  readonly message: string;
  /** The broker's error message, on a `Response <API>` line of a Connection. */
  readonly error?: unknown;
}

/**
 * Broker answers kafkajs retries by itself (it refreshes metadata or finds the
 * coordinator and asks again): a topic just created while its partitions elect leaders,
 * a leader moving, a coordinator loading, a group rebalancing. A healthy start of the
 * services gets dozens of them.
 */
const TRANSIENT_BROKER_ERRORS = [
  'There is no leader for this topic-partition as we are in the middle of a leadership election',
  'This server is not the leader for that topic-partition',
  'This server does not host this topic-partition',
  "The coordinator is loading and hence can't process requests for this group",
  'The group coordinator is not available',
  'This is not the correct coordinator for this group',
  'The group is rebalancing, so a rejoin is needed',
];

/**
 * What kafkajs warns of in normal operation, by namespace and message start:
 * - a consumer re-joining its group after a rebalance (a replica started or stopped);
 * - a consumer learning of partitions of a topic created a moment ago;
 * - a heartbeat or commit told the group is rebalancing ("..., resync group");
 * - the idempotent producer's retries, which Herald bounds on purpose (its publish
 *   path rewinds and retries a failed request itself);
 * - the default-partitioner notice (Herald passes its own partitioner);
 * - a response to a request that was already given up on (a timeout, or the
 *   connection closing at shutdown).
 */
const EXPECTED: ReadonlyArray<readonly [namespace: string, messageStart: string]> = [
  ['Runner', 'The group is rebalancing, re-joining'],
  ['ConsumerGroup', 'Consumer is not aware of all assigned partitions, refreshing metadata'],
  ['ConsumerGroup', 'The group is rebalancing, so a rejoin is needed, resync group'],
  ['ConsumerGroup', 'The coordinator is not aware of this member, resync group'],
  ['Producer', 'Limiting retries for the idempotent producer may invalidate EoS guarantees'],
  ['', 'KafkaJS v2.0.0 switched default partitioner'],
  ['RequestQueue', 'Response without match'],
];

/**
 * The level Herald logs a kafkajs line at. kafkajs logs every retried protocol error
 * at ERROR, though it recovers by itself; what it cannot recover from rejects the
 * caller's promise, and Herald logs that as an error. So: the expected and transient
 * lines above are debug, a consumer that crashed is an error, any other warning or
 * error of kafkajs (a broker unreachable, a request timing out, a restart) a warning.
 */
export function heraldLevelOfKafkaLog(line: KafkaLogLine): HeraldLogLevel {
  if (line.level !== KafkaLogLevel.ERROR && line.level !== KafkaLogLevel.WARN) return 'debug';
  if (line.namespace === 'Connection' && line.message.startsWith('Response ') && typeof line.error === 'string' && TRANSIENT_BROKER_ERRORS.some((known) => line.error === known)) {
    return 'debug';
  }
  if (EXPECTED.some(([namespace, start]) => (namespace === '' || namespace === line.namespace) && line.message.startsWith(start))) return 'debug';
  if (line.namespace === 'Consumer' && line.message.startsWith('Crash: ')) return 'error';
  return 'warn';
}

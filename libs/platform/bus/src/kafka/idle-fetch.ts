/**
 * An idle consumer's fetch waits long, keeps heartbeating, and a stop does not wait for it.
 *
 * Every kafkajs consumer with nothing to read asks the broker again each time its fetch
 * wait ends. An engine has 10 consumers and a dispatcher 15, most of them idle at any
 * moment (the channels a deployment does not use, the read models between changes), so
 * at a 500 ms wait an idle pair sent about 75 requests a second, the bulk of its idle
 * CPU, and each replica paid it again (docs/architecture.md, The message bus port). A longer wait alone
 * was tried and not kept, because kafkajs does two things only between fetches:
 *
 * - it heartbeats, and a heartbeat's answer is how a member learns of a rebalance, so a
 *   join into an idle group waited for every member's fetch to end;
 * - it stops: `consumer.stop()` waits for the fetch in flight, and `disconnect()` for
 *   every request on the connection.
 *
 * So while a fetch that follows an idle one waits (`busy` unset, see `fetch-linger.ts`):
 *
 * - the member heartbeats every `HEARTBEAT_INTERVAL_MS` on its coordinator connection
 *   (kafkajs fetches on a connection of their own), and an answer that ends its
 *   membership (a rebalance, an expired member) ends the fetch with that error, which
 *   kafkajs's runner answers by rejoining, as it does when its own heartbeat says so;
 * - a stop abandons it: the fetch ends with no batches at once, and its request is
 *   dropped on the client side, so the disconnect that follows does not wait for it.
 *   The abandoned call itself runs on (kafkajs cannot cancel it). A call abandoned
 *   before its request went out (its first microseconds; longer only while it refreshes
 *   the metadata, every 5 minutes) sends it afterwards: the disconnect waits for it
 *   as before or, in the rare case that it came first, kafkajs reopens the connection
 *   for it and the socket stays until the broker's idle timeout (10 minutes), which
 *   holds a process that exits by draining its event loop; Herald's services exit
 *   explicitly. Guarding the call's later network steps through
 *   `AsyncLocalStorage` closed that gap and was not kept: on Node 20 it turns on promise
 *   hooks for the whole process, a cost on every promise of the hot paths, for a gap of
 *   microseconds (the one flow bench run with it, 2026-11-28, was slower, within that
 *   machine's spread).
 *
 * What an abandoned or interrupted fetch would have returned is never handled: its
 * offsets are not resolved, so the partitions' next owner reads those messages. One cost
 * remains: the broker answers a connection's requests in order, so after a rebalance the
 * member's first fetch waits behind the interrupted one (at most the idle wait, and
 * less as soon as a message reaches one of the partitions it asked for).
 *
 * Done on kafkajs's `ConsumerGroup.fetch` (wrapped, outside the linger's wrapper) and
 * `Runner.stop`; refuses any kafkajs but the one it was written against.
 */
import { applyFetchLinger } from './fetch-linger';
import { assertPatchedKafkajs } from './kafkajs-version';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { isRebalancing } = require('kafkajs/src/errors') as { isRebalancing(error: unknown): boolean };

/** How often a member heartbeats, between fetches (kafkajs) and during an idle one (here). */
export const HEARTBEAT_INTERVAL_MS = 1_000;

/** The error an abandoned fetch's request is dropped with (never handled: nothing awaits it). */
export class IdleFetchAbandoned extends Error {
  override readonly name = 'HeraldIdleFetchAbandoned';
  constructor() {
    super('idle fetch abandoned: the consumer stopped');
  }
}

/** The fields of kafkajs's `ConsumerGroup` this reads and writes. */
export interface IdleFetchingGroup {
  /** Whether the last fetch returned messages (kept by `fetch-linger.ts`). */
  busy?: boolean;
  heartbeat(options: { interval: number }): Promise<void>;
  /** Set while an idle fetch waits: ends it with no batches and drops its request. */
  abandonIdleFetch?: () => void;
}

/** A heartbeat's answer that means the member must rejoin: what kafkajs's runner rejoins on (`isRebalancing`, and an expired member). */
export function endsMembership(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  return isRebalancing(error) || (error as { type?: unknown }).type === 'UNKNOWN_MEMBER_ID';
}

/**
 * `fetch`, made to heartbeat and to be abandoned while it waits after an idle one.
 * `dropRequest` drops the fetch's request on the client side once it is abandoned.
 */
export function interruptibleWhenIdle<T>(
  fetch: (this: IdleFetchingGroup, nodeId: string) => Promise<T[]>,
  dropRequest: (group: IdleFetchingGroup, nodeId: string) => void,
  heartbeatIntervalMs = HEARTBEAT_INTERVAL_MS,
) {
  return function (this: IdleFetchingGroup, nodeId: string): Promise<T[]> {
    if (this.busy) return fetch.call(this, nodeId);
    return new Promise<T[]>((resolve, reject) => {
      let settled = false;
      const settle = (finish: () => void) => {
        if (settled) return;
        settled = true;
        clearInterval(ticker);
        if (this.abandonIdleFetch === abandon) this.abandonIdleFetch = undefined;
        finish();
      };
      const ticker = setInterval(() => {
        this.heartbeat({ interval: heartbeatIntervalMs }).catch((error: unknown) => {
          // Other failures (the coordinator moving, a lost connection) are kafkajs's to
          // meet at its own next heartbeat, after this fetch.
          if (endsMembership(error)) settle(() => reject(error));
        });
      }, heartbeatIntervalMs);
      const abandon = () =>
        settle(() => {
          dropRequest(this, nodeId);
          resolve([]);
        });
      this.abandonIdleFetch = abandon;
      fetch.call(this, nodeId).then(
        (batches) => settle(() => resolve(batches)),
        (error: unknown) => settle(() => reject(error)),
      );
    });
  };
}

interface KafkajsConsumerGroup extends IdleFetchingGroup {
  fetch(nodeId: string): Promise<unknown[]>;
  cluster?: { brokerPool?: { brokers?: Record<string, { connectionPool?: { pool?: Array<{ rejectRequests(error: Error): void }> } } | undefined> } };
}

/**
 * Drops the requests on the broker's fetch connection: kafkajs's `ConnectionPool` sends
 * fetches, and only fetches, on its second connection, and every consumer has a cluster
 * of its own. Read from the pool as it is, not through a lookup that could reconnect.
 */
function dropFetchRequest(group: IdleFetchingGroup, nodeId: string): void {
  (group as KafkajsConsumerGroup).cluster?.brokerPool?.brokers?.[nodeId]?.connectionPool?.pool?.[1]?.rejectRequests(new IdleFetchAbandoned());
}

let applied = false;

/** Applies the linger first: this reads the `busy` it keeps, and wraps the fetch it wrapped. */
export function applyIdleFetch(): void {
  if (applied) return;
  assertPatchedKafkajs('idle-fetch.ts');
  applyFetchLinger();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ConsumerGroup: { prototype: KafkajsConsumerGroup } = require('kafkajs/src/consumer/consumerGroup');
  ConsumerGroup.prototype.fetch = interruptibleWhenIdle(ConsumerGroup.prototype.fetch, dropFetchRequest);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Runner: { prototype: { consumerGroup?: IdleFetchingGroup; stop(): Promise<void> } } = require('kafkajs/src/consumer/runner');
  const stop = Runner.prototype.stop;
  Runner.prototype.stop = function (this: { consumerGroup?: IdleFetchingGroup }) {
    this.consumerGroup?.abandonIdleFetch?.();
    return stop.call(this);
  };
  applied = true;
}

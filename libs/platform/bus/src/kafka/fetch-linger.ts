/**
 * A consumer that is busy asks for fuller batches. kafkajs fetches again as soon as a
 * fetch's batches are handled, with `minBytes: 1`, so a consumer that keeps up takes
 * whatever arrived while it worked: with a second replica each one keeps up more easily,
 * its batches shrink, and every batch's fixed cost (a transaction, a produce request, an
 * offset commit) is paid twice as often per message (flow bench, before the linger: two
 * engine and dispatcher pairs spent 1.45-2.25x the CPU per delivery of one; today's
 * ratio is in bench/RESULTS.md, "Flow").
 *
 * So after a fetch that returned messages, the next one asks the broker to hold the
 * answer until `LINGER_MIN_BYTES` are there, for at most `LINGER_MS`: at most that much
 * latency per hop while messages flow, and batches that fill instead of trickle. After an
 * empty fetch a consumer is idle again and waits as configured (`minBytes: 1`, the
 * long wait), so an idle consumer answers the first message at once.
 *
 * Done on kafkajs's `ConsumerGroup` prototype: `fetch` is wrapped (not rewritten) to note
 * whether it returned messages, and `minBytes` / `maxWaitTime`, which the constructor
 * assigns and each fetch reads, become accessors over the configured values. Refuses any
 * kafkajs but the one it was written against, as `request-queue-fix.ts` does.
 */
import { assertPatchedKafkajs } from './kafkajs-version';

/** Longest a busy consumer's fetch waits for `LINGER_MIN_BYTES`. */
export const LINGER_MS = 20;
/** What a busy consumer's fetch waits for: a few dozen messages of the usual size. */
export const LINGER_MIN_BYTES = 64 * 1024;

/** The fields of kafkajs's `ConsumerGroup` the linger reads and writes. */
export interface LingeringGroup {
  configuredMinBytes?: number;
  configuredMaxWaitTime?: number;
  /** Whether the last fetch returned messages. */
  busy?: boolean;
}

/** The fetch settings of the next fetch. */
export function nextFetch(group: LingeringGroup): { minBytes: number | undefined; maxWaitTime: number | undefined } {
  if (!group.busy) return { minBytes: group.configuredMinBytes, maxWaitTime: group.configuredMaxWaitTime };
  return {
    minBytes: Math.max(group.configuredMinBytes ?? 1, LINGER_MIN_BYTES),
    maxWaitTime: Math.min(group.configuredMaxWaitTime ?? LINGER_MS, LINGER_MS),
  };
}

/** What Herald's kafkajs patches read of a fetched partition batch. */
export interface KafkaBatch {
  isEmpty(): boolean;
}

/** `fetch`, noting on the group whether it returned messages. */
export function notingBusy<T extends KafkaBatch>(fetch: (this: LingeringGroup, nodeId: string) => Promise<T[]>) {
  return async function (this: LingeringGroup, nodeId: string): Promise<T[]> {
    const batches = await fetch.call(this, nodeId);
    this.busy = batches.some((batch) => !batch.isEmpty());
    return batches;
  };
}

let applied = false;

export function applyFetchLinger(): void {
  if (applied) return;
  assertPatchedKafkajs('fetch-linger.ts');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ConsumerGroup: { prototype: LingeringGroup & { fetch(nodeId: string): Promise<KafkaBatch[]> } } = require('kafkajs/src/consumer/consumerGroup');
  const proto = ConsumerGroup.prototype;
  proto.fetch = notingBusy(proto.fetch);
  Object.defineProperty(proto, 'minBytes', {
    configurable: true,
    get(this: LingeringGroup) {
      return nextFetch(this).minBytes;
    },
    set(this: LingeringGroup, value: number) {
      this.configuredMinBytes = value;
    },
  });
  Object.defineProperty(proto, 'maxWaitTime', {
    configurable: true,
    get(this: LingeringGroup) {
      return nextFetch(this).maxWaitTime;
    },
    set(this: LingeringGroup, value: number) {
      this.configuredMaxWaitTime = value;
    },
  });
  applied = true;
}

/**
 * Offsets are committed once a second while messages flow, not after every batch.
 *
 * kafkajs's runner commits after every partition batch it hands over (`autoCommitOffsets`
 * at the end of `handleBatch`), whatever `autoCommitInterval` says; the interval only
 * governs the commits between the messages of an `eachMessage` batch. Counted during a
 * 20,000-delivery flow round (flow bench, 2026-11-29): one dispatcher sent 1,182
 * OffsetCommit requests and 531 fetches, two dispatchers 2,493, and each commit is a
 * round trip the partition's next batch waits for and a write to `__consumer_offsets`.
 * The smaller the batches (a second replica halves them), the more commits per message.
 *
 * So the runner's commits go through `autoCommitInterval`, and the offsets a consumer
 * has resolved are still committed whenever kafkajs committed them for a reason other
 * than "a batch ended":
 * - when a heartbeat says the group is rebalancing (kafkajs's own commit there);
 * - when a fetch comes back without messages: a consumer that goes idle commits what it
 *   did at once instead of at its next batch, which may be hours away;
 * - when the consumer stops, before it leaves the group (kafkajs never committed there:
 *   its last batch had committed already).
 * The commit kafkajs makes when a handler throws becomes an interval commit too: Herald's
 * consumers handle failures inside the handler (retry, split, dead letter), and what was
 * resolved before goes out with the next commit. A crash (kill -9) re-delivers what was
 * resolved in the last second; every Herald consumer dedupes by message id, as it must
 * for any redelivery.
 *
 * Done on kafkajs's `Runner` prototype: `autoCommitOffsets` becomes the interval's
 * `autoCommitOffsetsIfNecessary`, and `heartbeat`, `fetch` and `stop` are wrapped.
 * Consumers run with `autoCommit: false` are left alone. Refuses any kafkajs but the one
 * it was written against.
 */
import { KafkaBatch } from './fetch-linger';
import { assertPatchedKafkajs } from './kafkajs-version';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { isRebalancing } = require('kafkajs/src/errors') as { isRebalancing(error: unknown): boolean };

/** The fields of kafkajs's `Runner` this reads and replaces. */
export interface CommittingRunner {
  autoCommit: boolean;
  running: boolean;
  consumerGroup: { commitOffsets(): Promise<void>; leave(): Promise<void> };
  autoCommitOffsets(): Promise<void>;
  autoCommitOffsetsIfNecessary(): Promise<void>;
  heartbeat(): Promise<void>;
  fetch(nodeId: string): Promise<KafkaBatch[]>;
  stop(): Promise<void>;
}

/** Commits what was resolved and not committed yet (no request when there is nothing). */
function commitResolved(runner: CommittingRunner): Promise<void> {
  return runner.autoCommit ? runner.consumerGroup.commitOffsets() : Promise.resolve();
}

/** The runner's methods with the commits above; each takes the method it replaces. */
export const deferredCommits = {
  autoCommitOffsets: () =>
    function (this: CommittingRunner): Promise<void> {
      return this.autoCommitOffsetsIfNecessary();
    },

  heartbeat: (heartbeat: CommittingRunner['heartbeat']) =>
    async function (this: CommittingRunner): Promise<void> {
      try {
        await heartbeat.call(this);
      } catch (error) {
        // The partitions may be about to move: hand their progress to the next owner.
        if (isRebalancing(error)) await commitResolved(this).catch(() => undefined);
        throw error;
      }
    },

  fetch: (fetch: CommittingRunner['fetch']) =>
    async function (this: CommittingRunner, nodeId: string): Promise<KafkaBatch[]> {
      const batches = await fetch.call(this, nodeId);
      if (this.running && batches.every((batch) => batch.isEmpty())) await commitResolved(this);
      return batches;
    },

  stop: (stop: CommittingRunner['stop']) =>
    function (this: CommittingRunner): Promise<void> {
      // kafkajs's stop waits for the batches in hand, then leaves the group: commit in between.
      const group: Partial<CommittingRunner['consumerGroup']> = this.consumerGroup;
      const own = Object.prototype.hasOwnProperty.call(group, 'leave');
      const leave = group.leave;
      // The wrapper is the group's own property for this stop only.
      const restore = () => {
        if (own) group.leave = leave;
        else delete group.leave;
      };
      group.leave = async () => {
        restore();
        // A failed commit must not keep the member in the group: the next owner re-delivers instead.
        await commitResolved(this).catch(() => undefined);
        return leave?.call(group);
      };
      return stop.call(this).finally(restore);
    },
};

let applied = false;

export function applyDeferredCommits(): void {
  if (applied) return;
  assertPatchedKafkajs('deferred-commit.ts');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Runner: { prototype: CommittingRunner } = require('kafkajs/src/consumer/runner');
  const proto = Runner.prototype;
  proto.autoCommitOffsets = deferredCommits.autoCommitOffsets();
  proto.heartbeat = deferredCommits.heartbeat(proto.heartbeat);
  proto.fetch = deferredCommits.fetch(proto.fetch);
  proto.stop = deferredCommits.stop(proto.stop);
  applied = true;
}

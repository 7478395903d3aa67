import { MessageBus, OutgoingMessage } from '@herald/bus';

export interface ClaimedMessage {
  readonly topic: string;
  readonly message: OutgoingMessage;
}

/**
 * One publish per topic, each keeping the claimed order (so the order per key).
 * Waits for every publish to settle before reporting a failure: the round then
 * rolls back, and no publish of it may still be in flight when the next round
 * sends the same rows again.
 */
export async function publishByTopic(bus: MessageBus, claimed: readonly ClaimedMessage[]): Promise<void> {
  const failed = await publishEachTopic(bus, claimed);
  const [first] = failed.values();
  if (failed.size > 0) throw first;
}

/** Like `publishByTopic`, but resolves with the error of each topic whose publish failed (the others went out). */
export async function publishEachTopic(bus: MessageBus, claimed: readonly ClaimedMessage[]): Promise<Map<string, unknown>> {
  const byTopic = new Map<string, OutgoingMessage[]>();
  for (const { topic, message } of claimed) {
    const batch = byTopic.get(topic) ?? [];
    batch.push(message);
    byTopic.set(topic, batch);
  }
  const topics = [...byTopic.keys()];
  const outcomes = await Promise.allSettled(topics.map((topic) => bus.publish(topic, byTopic.get(topic) ?? [])));
  const failed = new Map<string, unknown>();
  outcomes.forEach((outcome, i) => {
    if (outcome.status === 'rejected') failed.set(topics[i], outcome.reason);
  });
  return failed;
}

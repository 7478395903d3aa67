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
  const byTopic = new Map<string, OutgoingMessage[]>();
  for (const { topic, message } of claimed) {
    const batch = byTopic.get(topic) ?? [];
    batch.push(message);
    byTopic.set(topic, batch);
  }
  const outcomes = await Promise.allSettled([...byTopic].map(([topic, messages]) => bus.publish(topic, messages)));
  const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failure) throw failure.reason;
}

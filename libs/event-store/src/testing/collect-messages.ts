import { IncomingMessage, MessageBus, Subscription } from '@herald/bus';
import { uniqueName } from '@herald/testing';

export interface Collector {
  readonly received: IncomingMessage[];
  readonly subscription: Subscription;
}

/** Subscribes a fresh consumer group to `topics` and keeps every message it gets. */
export async function collectMessages(bus: MessageBus, topics: readonly string[]): Promise<Collector> {
  const received: IncomingMessage[] = [];
  const subscription = await bus.subscribe({
    groupId: uniqueName('es-test'),
    topics,
    startFrom: 'earliest',
    handler: async (message) => {
      received.push(message);
    },
  });
  return { received, subscription };
}

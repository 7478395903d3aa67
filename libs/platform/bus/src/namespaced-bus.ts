import { IncomingMessage, MessageBus, OutgoingMessage, SubscribeOptions, Subscription, TopicSpec } from './message-bus.port';

/**
 * Prefixes every topic and consumer group with a namespace (`<ns>.notify.trigger.accepted.v1`,
 * `<ns>.herald.ingest.ingress`), so several Herald installations (or test runs) share one
 * Kafka cluster without reading each other's messages. Handlers see the topic names
 * without the prefix, as the code names them.
 */
export class NamespacedBus implements MessageBus {
  private readonly prefix: string;

  constructor(
    private readonly inner: MessageBus,
    namespace: string,
  ) {
    this.prefix = `${namespace}.`;
  }

  ensureTopics(topics: readonly TopicSpec[]): Promise<void> {
    return this.inner.ensureTopics(topics.map((t) => ({ ...t, name: this.prefix + t.name })));
  }

  publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    return this.inner.publish(this.prefix + topic, messages);
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const batchHandler = options.batchHandler;
    const inner = await this.inner.subscribe({
      ...options,
      groupId: this.prefix + options.groupId,
      topics: options.topics.map((t) => this.prefix + t),
      handler: (message: IncomingMessage) => options.handler({ ...message, topic: this.strip(message.topic) }),
      ...(batchHandler ? { batchHandler: (messages: readonly IncomingMessage[]) => batchHandler(messages.map((m) => ({ ...m, topic: this.strip(m.topic) }))) } : {}),
    });
    return {
      groupId: options.groupId,
      assignment: () => inner.assignment().map((tp) => this.strip(tp)),
      lag: () => (inner.lag?.() ?? []).map((p) => ({ ...p, topic: this.strip(p.topic) })),
      stop: () => inner.stop(),
    };
  }

  checkHealth(): Promise<void> {
    return this.inner.checkHealth();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private strip(name: string): string {
    return name.startsWith(this.prefix) ? name.slice(this.prefix.length) : name;
  }
}

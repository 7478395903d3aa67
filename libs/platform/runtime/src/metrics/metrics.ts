import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { IncomingMessage, MessageBus, OutgoingMessage, SubscribeOptions, Subscription, TopicSpec } from '@herald/bus';
import { withTimeout } from '../scheduling/timeouts';

/** One registry per process, labelled with the process's role (a service name, or `embedded`). */
export function createMetricsRegistry(processRole: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ herald_process: processRole });
  collectDefaultMetrics({ register: registry, prefix: 'herald_' });
  return registry;
}

export interface HttpMetrics {
  observe(method: string, route: string, status: number, seconds: number): void;
}

export function createHttpMetrics(registry: Registry, api: string): HttpMetrics {
  const name = 'herald_http_request_duration_seconds';
  const histogram =
    (registry.getSingleMetric(name) as Histogram<'api' | 'method' | 'route' | 'status'> | undefined) ??
    new Histogram({
      name,
      help: 'HTTP requests by API, route and status',
      labelNames: ['api', 'method', 'route', 'status'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
  return {
    observe: (method, route, status, seconds) =>
      histogram.observe({ api, method, route, status: String(status) }, seconds),
  };
}

export interface OutboxRelayMetrics {
  /** Counts a row the relay parked (`herald_outbox_rows_parked_total`). */
  readonly onParked: () => void;
  /** How to read the schema's parked rows for `herald_outbox_parked_rows`, on each scrape. */
  readonly watchParked: (count: () => Promise<number>) => void;
}

/** Parked-row counts by schema, per registry: a gauge's collect is fixed when it is created. */
const parkedCounters = new WeakMap<Registry, Map<string, () => Promise<number>>>();

/**
 * Metrics of one schema's outbox relay. Parked rows do not make a process unready (that
 * would take healthy replicas out of rotation for a row no replica can publish); they
 * are logged at error level and shown here, for alerting.
 */
export function outboxRelayMetrics(registry: Registry, schema: string): OutboxRelayMetrics {
  const parkedTotalName = 'herald_outbox_rows_parked_total';
  const parkedTotal =
    (registry.getSingleMetric(parkedTotalName) as Counter<'schema'> | undefined) ??
    new Counter({
      name: parkedTotalName,
      help: 'Outbox rows this process parked because they could not be published, by schema',
      labelNames: ['schema'],
      registers: [registry],
    });
  let counters = parkedCounters.get(registry);
  if (!counters) {
    const sources = new Map<string, () => Promise<number>>();
    counters = sources;
    parkedCounters.set(registry, sources);
    new Gauge({
      name: 'herald_outbox_parked_rows',
      help: 'Rows in the schema\'s outbox_parked table, waiting for an operator',
      labelNames: ['schema'],
      registers: [registry],
      async collect() {
        await Promise.all(
          [...sources].map(async ([name, count]) => {
            try {
              this.set({ schema: name }, await withTimeout(count(), 2_000));
            } catch {
              // The database does not answer: the last value stands; readiness reports the outage.
            }
          }),
        );
      },
    });
  }
  const sources = counters;
  parkedTotal.inc({ schema }, 0);
  return {
    onParked: () => parkedTotal.inc({ schema }),
    watchParked: (count) => void sources.set(schema, count),
  };
}

/**
 * Decorates a MessageBus with per-topic counters, handler timings and consumer lag, so
 * both adapters report the same metrics. Topics and groups are named as the code names
 * them (without the installation's namespace), as in every other bus metric.
 */
export class InstrumentedBus implements MessageBus {
  private readonly published: Counter<'topic'>;
  private readonly consumed: Counter<'topic' | 'group' | 'outcome'>;
  private readonly handlerSeconds: Histogram<'topic' | 'group'>;
  private readonly batchMessages: Histogram<'topic' | 'group'>;
  /** This process's live subscriptions, whose lag each scrape reads. */
  private readonly live = new Set<Subscription>();

  constructor(
    private readonly inner: MessageBus,
    registry: Registry,
  ) {
    this.published = new Counter({
      name: 'herald_bus_messages_published_total',
      help: 'Messages published, by topic',
      labelNames: ['topic'],
      registers: [registry],
    });
    this.consumed = new Counter({
      name: 'herald_bus_messages_consumed_total',
      help: 'Handler invocations, by topic, group and outcome (ok, dead_lettered, error)',
      labelNames: ['topic', 'group', 'outcome'],
      registers: [registry],
    });
    this.batchMessages = new Histogram({
      name: 'herald_bus_batch_messages',
      help: 'Messages per batch a batch handler was given, by topic and group: how full batches are, whose fixed costs (a transaction, an offset commit) each message shares',
      labelNames: ['topic', 'group'],
      buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
      registers: [registry],
    });
    this.handlerSeconds = new Histogram({
      name: 'herald_bus_handler_duration_seconds',
      help: 'Time a handler took per message',
      labelNames: ['topic', 'group'],
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers: [registry],
    });
    const live = this.live;
    new Gauge({
      name: 'herald_bus_consumer_lag',
      help: 'Messages a consumer group has not consumed yet, by topic, group and partition (every member reports the whole group: take the max)',
      labelNames: ['topic', 'group', 'partition'],
      registers: [registry],
      collect() {
        // Rebuilt on each scrape: a stopped subscription's partitions disappear with it.
        this.reset();
        for (const subscription of live) {
          for (const { topic, partition, lag } of subscription.lag?.() ?? []) {
            this.set({ topic, group: subscription.groupId, partition: String(partition) }, lag);
          }
        }
      },
    });
  }

  ensureTopics(topics: readonly TopicSpec[]): Promise<void> {
    return this.inner.ensureTopics(topics);
  }

  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    await this.inner.publish(topic, messages);
    this.published.inc({ topic }, messages.length);
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const { groupId, batchHandler } = options;
    const subscription = await this.inner.subscribe({
      ...options,
      ...(batchHandler
        ? {
            batchHandler: async (messages: readonly IncomingMessage[]) => {
              const topic = messages[0].topic;
              this.batchMessages.observe({ topic, group: groupId }, messages.length);
              try {
                const outcomes = await batchHandler(messages);
                const deadLettered = outcomes?.filter((o) => o === 'dead_lettered').length ?? 0;
                if (deadLettered > 0) this.consumed.inc({ topic, group: groupId, outcome: 'dead_lettered' }, deadLettered);
                if (messages.length > deadLettered) this.consumed.inc({ topic, group: groupId, outcome: 'ok' }, messages.length - deadLettered);
                return outcomes;
              } catch (error) {
                this.consumed.inc({ topic, group: groupId, outcome: 'error' }, messages.length);
                throw error;
              }
            },
          }
        : {}),
      handler: async (message: IncomingMessage) => {
        const end = this.handlerSeconds.startTimer({ topic: message.topic, group: groupId });
        try {
          const outcome = await options.handler(message);
          this.consumed.inc({ topic: message.topic, group: groupId, outcome: outcome === 'dead_lettered' ? 'dead_lettered' : 'ok' });
          return outcome;
        } catch (error) {
          this.consumed.inc({ topic: message.topic, group: groupId, outcome: 'error' });
          throw error;
        } finally {
          end();
        }
      },
    });
    this.live.add(subscription);
    return {
      groupId: subscription.groupId,
      assignment: () => subscription.assignment(),
      lag: () => subscription.lag?.() ?? [],
      stop: async () => {
        this.live.delete(subscription);
        await subscription.stop();
      },
    };
  }

  checkHealth(): Promise<void> {
    return this.inner.checkHealth();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

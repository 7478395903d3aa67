import { hostname } from 'node:os';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { withTimeout } from '../scheduling/timeouts';

/** Which replica a role metric comes from: the pod name in Kubernetes (HOSTNAME), else the host, with the pid. */
export function replicaName(): string {
  return `${process.env['HOSTNAME'] ?? hostname()}:${process.pid}`;
}

/** What the metrics read from an outbox relay (OutboxRelay). */
export interface WatchedOutboxRelay {
  isActive(): boolean;
  backlog(): Promise<{ readonly rows: number; readonly oldestAgeSeconds: number }>;
}

/** What the metrics read from a timer poller (TimerPoller). */
export interface WatchedTimerPoller {
  isActive(): boolean;
  backlog(): Promise<{ readonly due: number; readonly latenessSeconds: number }>;
}

export interface OutboxShareMetrics {
  /** Counts rows this replica's relay published (`herald_outbox_relay_claimed_total`). */
  readonly onPublished: (rows: number) => void;
  /** Observes the rows of each round this replica's relay committed (`herald_outbox_relay_round_rows`), empty rounds too. */
  readonly onRound: (rows: number) => void;
  /** Reads the relay's role and the schema's backlog on each scrape. */
  readonly watch: (relay: WatchedOutboxRelay) => void;
}

export interface TimerPollerMetrics {
  /** Counts timers this replica's poller fired (`herald_timer_poller_fired_total`). */
  readonly onFired: (timers: number) => void;
  /** Reads the poller's role and the schema's due timers on each scrape. */
  readonly watch: (poller: WatchedTimerPoller) => void;
}

/**
 * Gauges read on scrape, one source per schema and registry: a gauge's collect is
 * fixed when it is created, so the sources live beside it. A source that does not
 * answer within 2 s leaves the last value standing (readiness reports the outage).
 */
class ScrapedGauges<Source> {
  private readonly sources = new Map<string, Source>();

  constructor(
    registry: Registry,
    gauges: ReadonlyArray<{ name: string; help: string; labels: string[] }>,
    read: (source: Source) => Promise<ReadonlyArray<number>>,
    labelsOf: (schema: string) => Record<string, string>,
  ) {
    const sources = this.sources;
    // One read per source and scrape, shared by the gauges it feeds.
    let scrape: Promise<Map<string, ReadonlyArray<number> | undefined>> | undefined;
    const readAll = (): Promise<Map<string, ReadonlyArray<number> | undefined>> => {
      scrape ??= Promise.all(
        [...sources].map(async ([schema, source]) => [schema, await withTimeout(read(source), 2_000).catch(() => undefined)] as const),
      ).then((entries) => {
        setImmediate(() => (scrape = undefined));
        return new Map(entries);
      });
      return scrape;
    };
    gauges.forEach(({ name, help, labels }, index) => {
      new Gauge({
        name,
        help,
        labelNames: labels,
        registers: [registry],
        async collect() {
          for (const [schema, values] of await readAll()) if (values) this.set(labelsOf(schema), values[index]);
        },
      });
    });
  }

  watch(schema: string, source: Source): void {
    this.sources.set(schema, source);
  }
}

/** The registry's metric of that name, created on first use: every schema of a process (all of them, embedded) shares one. */
function registeredOnce<T>(registry: Registry, name: string, create: (name: string) => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create(name);
}

function perReplicaCounter(registry: Registry, name: string, help: string): Counter<'schema' | 'replica'> {
  return registeredOnce(registry, name, () => new Counter({ name, help, labelNames: ['schema', 'replica'], registers: [registry] }));
}

const outboxGauges = new WeakMap<Registry, { backlog: ScrapedGauges<WatchedOutboxRelay>; role: ScrapedGauges<WatchedOutboxRelay> }>();
const timerGauges = new WeakMap<Registry, { backlog: ScrapedGauges<WatchedTimerPoller>; role: ScrapedGauges<WatchedTimerPoller> }>();

/**
 * The outbox of one schema as an operator scales and alerts on it: rows waiting and
 * the oldest one's age (the same from every replica: they read one table), and this
 * replica's part (rows it published, whether its relay runs; summed over replicas,
 * `herald_outbox_relay_active` is the number of relays sharing the schema).
 */
export function outboxShareMetrics(registry: Registry, schema: string, replica = replicaName()): OutboxShareMetrics {
  const claimed = perReplicaCounter(registry, 'herald_outbox_relay_claimed_total', 'Outbox rows this replica\'s relay claimed and published, by schema');
  let gauges = outboxGauges.get(registry);
  if (!gauges) {
    gauges = {
      backlog: new ScrapedGauges<WatchedOutboxRelay>(
        registry,
        [
          { name: 'herald_outbox_backlog_rows', help: 'Rows waiting in the schema\'s outbox', labels: ['schema'] },
          { name: 'herald_outbox_oldest_row_age_seconds', help: 'Age of the oldest row in the schema\'s outbox (0 when empty)', labels: ['schema'] },
        ],
        async (relay) => {
          const backlog = await relay.backlog();
          return [backlog.rows, backlog.oldestAgeSeconds];
        },
        (name) => ({ schema: name }),
      ),
      role: new ScrapedGauges<WatchedOutboxRelay>(
        registry,
        [{ name: 'herald_outbox_relay_active', help: '1 while this replica\'s relay of the schema runs and claims its share', labels: ['schema', 'replica'] }],
        async (relay) => [relay.isActive() ? 1 : 0],
        (name) => ({ schema: name, replica }),
      ),
    };
    outboxGauges.set(registry, gauges);
  }
  const { backlog, role } = gauges;
  claimed.inc({ schema, replica }, 0);
  const rounds = registeredOnce(
    registry,
    'herald_outbox_relay_round_rows',
    (name) =>
      new Histogram({
        name,
        help: 'Rows each committed round of this replica\'s relay published or parked (0: its slots were empty or taken), by schema',
        labelNames: ['schema', 'replica'],
        buckets: [0, 1, 5, 10, 20, 50, 100, 200, 500],
        registers: [registry],
      }),
  );
  return {
    onPublished: (rows) => claimed.inc({ schema, replica }, rows),
    onRound: (rows) => rounds.observe({ schema, replica }, rows),
    watch: (relay) => {
      backlog.watch(schema, relay);
      role.watch(schema, relay);
    },
  };
}

/** The due timers of one schema (how many, how late the earliest) and this replica's poller. */
export function timerPollerMetrics(registry: Registry, schema: string, replica = replicaName()): TimerPollerMetrics {
  const fired = perReplicaCounter(registry, 'herald_timer_poller_fired_total', 'Timers this replica\'s poller fired, by schema');
  let gauges = timerGauges.get(registry);
  if (!gauges) {
    gauges = {
      backlog: new ScrapedGauges<WatchedTimerPoller>(
        registry,
        [
          { name: 'herald_timers_due', help: 'Timers of the schema that are due and not fired yet', labels: ['schema'] },
          { name: 'herald_timers_lateness_seconds', help: 'How long ago the earliest unfired due timer came due (0 when none)', labels: ['schema'] },
        ],
        async (poller) => {
          const backlog = await poller.backlog();
          return [backlog.due, backlog.latenessSeconds];
        },
        (name) => ({ schema: name }),
      ),
      role: new ScrapedGauges<WatchedTimerPoller>(
        registry,
        [{ name: 'herald_timer_poller_active', help: '1 while this replica\'s timer poller of the schema runs', labels: ['schema', 'replica'] }],
        async (poller) => [poller.isActive() ? 1 : 0],
        (name) => ({ schema: name, replica }),
      ),
    };
    timerGauges.set(registry, gauges);
  }
  const { backlog, role } = gauges;
  fired.inc({ schema, replica }, 0);
  return {
    onFired: (timers) => fired.inc({ schema, replica }, timers),
    watch: (poller) => {
      backlog.watch(schema, poller);
      role.watch(schema, poller);
    },
  };
}

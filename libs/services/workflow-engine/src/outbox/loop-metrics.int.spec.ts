import { InProcessBus } from '@herald/bus';
import { createServiceDataSource, migrateSchema, openTestDatabase, TestDatabase } from '@herald/database';
import { EventStore, eventStoreMigrations, OutboxRelay, TimerPoller } from '@herald/event-store';
import { outboxShareMetrics, timerPollerMetrics } from '@herald/runtime';
import { databaseTargets, expectEventually, uniqueName } from '@herald/testing';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';

/** The value of one sample in a scrape, or undefined when the scrape has no such line. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe.each(databaseTargets())('outbox and timer metrics on $kind', (target) => {
  let db: TestDatabase;
  let source: DataSource;
  let schema: string;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    schema = uniqueName('es_metrics');
    source = createServiceDataSource({ url: db.url, schema, migrations: eventStoreMigrations(schema), applicationName: 'herald-loop-metrics-test', poolSize: 4 });
    await source.initialize();
    await migrateSchema(source, schema);
  });
  afterAll(async () => {
    await source?.destroy();
    await db?.dispose([schema]);
  });

  it('shows the outbox backlog and the due timers while they wait, and this replica\'s relay and poller draining them', async () => {
    const bus = new InProcessBus();
    const topic = uniqueName('metrics.out');
    await bus.ensureTopics([{ name: topic, partitions: 2 }]);
    const registry = new Registry();
    const share = outboxShareMetrics(registry, schema, 'replica-a');
    const timers = timerPollerMetrics(registry, schema, 'replica-a');
    const quiet = (): void => undefined;
    const relay = new OutboxRelay(source, schema, bus, quiet, { onPublished: share.onPublished, onRound: share.onRound });
    const poller = new TimerPoller(source, schema, bus, quiet, { onFired: timers.onFired });
    share.watch(relay);
    timers.watch(poller);
    const s = `schema="${schema}"`;
    const sr = `schema="${schema}",replica="replica-a"`;
    try {
      const store = new EventStore(source, schema);
      const message = (i: number) => ({ messageId: uniqueName(`m${i}`), topic, key: `k${i % 2}`, value: String(i) });
      await store.append({
        streamId: uniqueName('run'),
        expectedPosition: 0,
        events: [{ type: 'decided', data: {} }],
        outbox: [0, 1, 2].map(message),
        timers: [
          { timerId: uniqueName('t'), dueAt: new Date(Date.now() - 20_000), topic, key: 'k0', value: 't0' },
          { timerId: uniqueName('t'), dueAt: new Date(Date.now() - 1_000), topic, key: 'k1', value: 't1' },
          { timerId: uniqueName('t'), dueAt: new Date(Date.now() + 3_600_000), topic, key: 'k1', value: 'later' },
        ],
      });

      let text = await registry.metrics();
      expect(sample(text, 'herald_outbox_backlog_rows', s)).toBe(3);
      expect(sample(text, 'herald_outbox_oldest_row_age_seconds', s)).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'herald_timers_due', s)).toBe(2);
      expect(sample(text, 'herald_timers_lateness_seconds', s)).toBeGreaterThanOrEqual(19);
      expect(sample(text, 'herald_outbox_relay_active', sr)).toBe(0);
      expect(sample(text, 'herald_outbox_relay_claimed_total', sr)).toBe(0);

      relay.start();
      poller.start();

      // The counters move once a round's publish is done, just after its rows are gone: wait for both.
      await expectEventually(async () => {
        text = await registry.metrics();
        expect(sample(text, 'herald_outbox_backlog_rows', s)).toBe(0);
        expect(sample(text, 'herald_timers_due', s)).toBe(0);
        expect(sample(text, 'herald_outbox_relay_claimed_total', sr)).toBe(3);
        expect(sample(text, 'herald_timer_poller_fired_total', sr)).toBe(2);
      });
      // Every committed round is observed with its rows, the 3 rows in all.
      expect(sample(text, 'herald_outbox_relay_round_rows_sum', sr)).toBe(3);
      expect(sample(text, 'herald_outbox_relay_round_rows_count', sr)).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'herald_outbox_oldest_row_age_seconds', s)).toBe(0);
      expect(sample(text, 'herald_timers_lateness_seconds', s)).toBe(0);
      expect(sample(text, 'herald_outbox_relay_active', sr)).toBe(1);
      expect(sample(text, 'herald_timer_poller_active', sr)).toBe(1);
    } finally {
      await Promise.all([relay.stop(), poller.stop()]);
      await bus.close();
    }
    // A scrape's reads are shared until the next turn of the event loop; a stop can resolve within one.
    await expectEventually(async () => expect(sample(await registry.metrics(), 'herald_outbox_relay_active', sr)).toBe(0));
  });
});

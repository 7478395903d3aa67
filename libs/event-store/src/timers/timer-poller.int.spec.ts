import { InProcessBus } from '@herald/bus';
import { databaseTargets, describeTarget, expectEventually, uniqueName } from '@herald/testing';
import { EventStoreLogger } from '../event-store-logger';
import { EventStore } from '../event-store';
import { TimerSchedule } from '../event-store.types';
import { collectMessages, Collector } from '../testing/collect-messages';
import { EventStoreTestDatabase } from '../testing/event-store-test-database';
import { TimerPoller } from './timer-poller';

const quietLog: EventStoreLogger = () => undefined;

describe.each(databaseTargets())('TimerPoller on $kind', (target) => {
  let db: EventStoreTestDatabase;
  let store: EventStore;
  let bus: InProcessBus;
  let topic: string;
  let collector: Collector;
  const pollers: TimerPoller[] = [];

  beforeAll(async () => {
    db = await EventStoreTestDatabase.open(target);
    store = new EventStore(db.dataSource, db.schema);
  });
  afterAll(async () => {
    await db?.dispose();
  });
  beforeEach(async () => {
    bus = new InProcessBus();
    topic = uniqueName('es.timers');
    await bus.ensureTopics([{ name: topic, partitions: 4 }]);
    collector = await collectMessages(bus, [topic]);
  });
  afterEach(async () => {
    await Promise.all(pollers.splice(0).map((p) => p.stop()));
    await collector.subscription.stop();
    await bus.close();
    await db.clearOutboxAndTimers();
  });

  function poller(options: ConstructorParameters<typeof TimerPoller>[4] = {}, source = db.dataSource): TimerPoller {
    const created = new TimerPoller(source, db.schema, bus, quietLog, { idleDelayMs: 10, ...options });
    pollers.push(created);
    return created;
  }

  async function schedule(timers: TimerSchedule[]): Promise<string> {
    const streamId = uniqueName('run');
    await store.append({ streamId, expectedPosition: 0, events: [{ type: 'timer.scheduled', data: {} }], timers });
    return streamId;
  }

  function timer(timerId: string, dueAt: Date): TimerSchedule {
    return { timerId, dueAt, topic, key: `ws:${timerId}`, value: JSON.stringify({ timer: timerId }) };
  }

  const firedIds = (): string[] => collector.received.map((m) => m.headers['timer-id']);

  it(`leaves a timer that is not due yet on ${describeTarget(target)}`, async () => {
    await schedule([timer('later', new Date(Date.now() + 3_600_000))]);

    expect(await poller().pollOnce()).toBe(0);
    expect(await db.count('timers')).toBe(1);
  });

  it('fires a due timer once, with its key, value and timer id, and deletes it', async () => {
    await schedule([timer('due', new Date(Date.now() - 1_000)), timer('not-yet', new Date(Date.now() + 3_600_000))]);
    const once = poller();

    expect(await once.pollOnce()).toBe(1);
    expect(await once.pollOnce()).toBe(0);

    await expectEventually(() => expect(collector.received).toHaveLength(1));
    const [fired] = collector.received;
    expect(fired.key).toBe('ws:due');
    expect(fired.value.toString('utf8')).toBe('{"timer":"due"}');
    expect(fired.headers['timer-id']).toBe('due');
    expect(await db.dataSource.query(`SELECT timer_id FROM "${db.schema}".timers`)).toEqual([{ timer_id: 'not-yet' }]);
  });

  it('never fires early: a running poller fires a timer only once the database clock reaches it', async () => {
    const dueAt = new Date(Date.now() + 1_000);
    await schedule([timer('soon', dueAt)]);
    const firedAt: number[] = [];
    const running = poller();
    const timing = await bus.subscribe({
      groupId: uniqueName('g'),
      topics: [topic],
      handler: async () => {
        firedAt.push(Date.now());
      },
    });

    running.start();

    await expectEventually(() => expect(firedIds()).toEqual(['soon']));
    await expectEventually(() => expect(firedAt).toHaveLength(1));
    // The database and this process share a clock here, so the process clock bounds the firing.
    expect(firedAt[0]).toBeGreaterThanOrEqual(dueAt.getTime());
    await timing.stop();
  });

  it('hands each of 100 due timers to exactly one of two concurrent pollers', async () => {
    const past = Date.now() - 5_000;
    const ids = Array.from({ length: 100 }, (_, i) => `t-${String(i).padStart(3, '0')}`);
    await schedule(ids.map((id, i) => timer(id, new Date(past + i))));
    // Two replicas, each with its own connections; small batches so their rounds interleave.
    const replicas = [poller({ batchSize: 7 }), poller({ batchSize: 7 }, await db.connect())];
    const drain = async (p: TimerPoller): Promise<number> => {
      let total = 0;
      for (let fired = await p.pollOnce(); fired > 0; fired = await p.pollOnce()) total += fired;
      return total;
    };

    const totals = await Promise.all(replicas.map(drain));

    expect(totals[0] + totals[1]).toBe(100);
    await expectEventually(() => expect(collector.received).toHaveLength(100));
    expect([...firedIds()].sort()).toEqual(ids);
    expect(await db.count('timers')).toBe(0);
  });

  it('does not fire a cancelled timer', async () => {
    const streamId = await schedule([timer('cancelled', new Date(Date.now() - 1_000)), timer('kept', new Date(Date.now() - 1_000))]);
    await store.append({ streamId, expectedPosition: 1, events: [{ type: 'timer.cancelled', data: {} }], cancelTimerIds: ['cancelled'] });

    expect(await poller().pollOnce()).toBe(1);
    await expectEventually(() => expect(firedIds()).toEqual(['kept']));
  });

  it('sleeps while idle: woken by a new timer, and then up to its due time, not polling meanwhile', async () => {
    // Without a wake-up or the next due time, nothing would fire for a minute.
    const sleeper = poller({ idleDelayMs: 60_000, safetyPollMs: 60_000 });
    sleeper.start();
    expect(await sleeper.pollOnce()).toBe(0);

    await schedule([timer('woken', new Date(Date.now() + 1_500)), timer('moved', new Date(Date.now() + 3_600_000))]);

    await expectEventually(() => expect(firedIds()).toEqual(['woken']), { timeoutMs: 20_000 });
    // Made due by an UPDATE, as tests and operators do: that wakes it too.
    await db.dataSource.query(`UPDATE "${db.schema}".timers SET due_at = now() WHERE timer_id = 'moved'`);
    await expectEventually(() => expect(firedIds()).toEqual(['woken', 'moved']), { timeoutMs: 20_000 });
  });

  it('reports how many timers are due and how late the earliest is', async () => {
    await schedule([timer('late', new Date(Date.now() - 30_000)), timer('later', new Date(Date.now() - 1_000)), timer('future', new Date(Date.now() + 3_600_000))]);
    const backlog = await poller().backlog();
    expect(backlog.due).toBe(2);
    expect(backlog.latenessSeconds).toBeGreaterThanOrEqual(29);
    expect(backlog.latenessSeconds).toBeLessThan(120);
  });
});

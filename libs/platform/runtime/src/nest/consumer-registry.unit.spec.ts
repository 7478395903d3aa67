import { Registry } from 'prom-client';
import { InProcessBus, MessageBus, SubscribeOptions, Subscription } from '@herald/bus';
import { expectEventually } from '@herald/testing';
import { loadHeraldConfig } from '../config/herald-config';
import { HealthRegistry } from '../health/health-registry';
import { HeraldLogger } from '../logging/logger';
import { ConsumerRegistry } from './consumer-registry';

/** An in-process bus whose joins wait for the test, or fail while `failures` lasts. */
class ControlledJoins extends InProcessBus {
  failures = 0;
  private release?: () => void;
  readonly held = new Promise<void>((resolve) => (this.release = resolve));

  open(): void {
    this.release?.();
  }

  override async subscribe(options: SubscribeOptions): Promise<Subscription> {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('coordinator not available');
    }
    await this.held;
    return super.subscribe(options);
  }
}

describe('ConsumerRegistry joins', () => {
  const silent = new HeraldLogger('test', 'error', { write: () => undefined });
  let bus: ControlledJoins;
  let health: HealthRegistry;
  let registry: ConsumerRegistry;

  beforeEach(async () => {
    bus = new ControlledJoins();
    await bus.ensureTopics([{ name: 't', partitions: 2 }]);
    health = new HealthRegistry();
    registry = new ConsumerRegistry(bus as MessageBus, silent, loadHeraldConfig({}), health, new Registry());
  });

  afterEach(async () => {
    bus.open();
    await registry.onModuleDestroy();
    await bus.close();
  });

  it('returns before the group is joined, and consumes once it is', async () => {
    const seen: string[] = [];
    const subscription = await registry.subscribe({ groupId: 'g', topics: ['t'], handler: async (m) => void seen.push(m.value.toString()) });
    let started = false;
    void subscription.started.then(() => (started = true));
    await bus.publish('t', [{ key: 'k', value: 'hello' }]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started).toBe(false);
    expect(subscription.assignment()).toEqual([]);
    expect((await health.readiness()).ready).toBe(true);

    bus.open();
    await subscription.started;
    expect(subscription.assignment()).toEqual(['t:0', 't:1']);
    await expectEventually(() => expect(seen).toEqual(['hello']));
  });

  it('retries a join that fails, reporting check "consumers" failing until it succeeds', async () => {
    bus.failures = 1;
    bus.open();
    const subscription = await registry.subscribe({ groupId: 'g', topics: ['t'], handler: async () => undefined });
    await expectEventually(async () => expect((await health.readiness()).checks.consumers).toEqual({ status: 'failing', error: 'not joined: g (coordinator not available)' }));
    await subscription.started;
    expect((await health.readiness()).checks.consumers).toEqual({ status: 'ok' });
  });
});

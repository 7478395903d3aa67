import { HealthRegistry } from '../health/health-registry';
import { HeraldLogger } from '../logging/logger';
import { expectEventually } from '@herald/testing';
import { ProcessLifecycle } from './process-lifecycle';

const quiet = new HeraldLogger('test', 'error', { write: () => undefined });

describe('ProcessLifecycle', () => {
  it('drains readiness first, then runs the steps in order, once', async () => {
    const health = new HealthRegistry();
    const order: string[] = [];
    const lifecycle = new ProcessLifecycle(quiet, health, 5_000, () => undefined);
    lifecycle.onShutdown('consumers and http', async () => void order.push(`http draining=${health.isDraining}`));
    lifecycle.onShutdown('bus', async () => void order.push('bus'));

    const [first, second] = await Promise.all([lifecycle.shutdown('SIGTERM'), lifecycle.shutdown('SIGINT')]);

    expect([first, second]).toEqual([0, 0]);
    expect(order).toEqual(['http draining=true', 'bus']);
  });

  it('goes on after a failing step and reports failure', async () => {
    const order: string[] = [];
    const lifecycle = new ProcessLifecycle(quiet, new HealthRegistry(), 5_000, () => undefined);
    lifecycle.onShutdown('http', async () => {
      throw new Error('socket hang up');
    });
    lifecycle.onShutdown('bus', async () => void order.push('bus'));
    expect(await lifecycle.shutdown('SIGTERM')).toBe(1);
    expect(order).toEqual(['bus']);
  });

  it('gives up when a step outlives the timeout', async () => {
    const lifecycle = new ProcessLifecycle(quiet, new HealthRegistry(), 30, () => undefined);
    lifecycle.onShutdown('stuck', () => new Promise(() => undefined));
    expect(await lifecycle.shutdown('SIGTERM')).toBe(1);
  });

  it('shuts down gracefully when its parent process goes away, and only then', async () => {
    let parent = 100;
    const exits: number[] = [];
    const steps: string[] = [];
    const lifecycle = new ProcessLifecycle(quiet, new HealthRegistry(), 5_000, (code) => void exits.push(code));
    lifecycle.onShutdown('http', async () => void steps.push('http'));
    let polls = 0;
    const stop = lifecycle.stopWithParent({ pollMs: 5, parentPid: () => (polls++, parent) });
    try {
      // Still the same parent: polls change nothing.
      await expectEventually(() => expect(polls).toBeGreaterThan(3));
      expect({ steps, exits }).toEqual({ steps: [], exits: [] });
      parent = 1; // re-parented to init: npm (or its shell) has exited
      await expectEventually(() => expect({ steps, exits }).toEqual({ steps: ['http'], exits: [0] }));
    } finally {
      stop();
    }
  });
});

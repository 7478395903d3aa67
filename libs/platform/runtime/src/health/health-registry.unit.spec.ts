import { HealthRegistry } from './health-registry';

describe('HealthRegistry', () => {
  it('is ready when every check passes', async () => {
    const health = new HealthRegistry();
    health.register('bus', async () => undefined);
    health.register('database:ingest', async () => undefined);
    expect(await health.readiness()).toEqual({
      ready: true,
      status: 'ok',
      checks: { bus: { status: 'ok' }, 'database:ingest': { status: 'ok' } },
    });
  });

  it('is not ready when one check fails or hangs, and says which', async () => {
    const health = new HealthRegistry();
    health.register('bus', async () => {
      throw new Error('broker unreachable');
    });
    health.register('database:engine', () => new Promise(() => undefined));
    const report = await health.readiness(50);
    expect(report.ready).toBe(false);
    expect(report.checks).toEqual({
      bus: { status: 'failing', error: 'broker unreachable' },
      'database:engine': { status: 'failing', error: 'database:engine did not answer within 50 ms' },
    });
  });

  it('is not failed for the time the event loop was blocked by something else', async () => {
    const health = new HealthRegistry();
    // Settles through I/O-phase work (setImmediate), which runs after the timers of a blocked loop.
    health.register('database:audience', () => new Promise((resolve) => setTimeout(() => setImmediate(resolve), 20)));
    const report = health.readiness(1_000);
    const blockedUntil = Date.now() + 1_500;
    while (Date.now() < blockedUntil) {
      // one slow request holding the loop
    }
    expect(await report).toMatchObject({ ready: true, checks: { 'database:audience': { status: 'ok' } } });
  });

  it('reports shutting_down once draining, even with healthy dependencies', async () => {
    const health = new HealthRegistry();
    health.register('bus', async () => undefined);
    health.startDraining();
    expect(await health.readiness()).toMatchObject({ ready: false, status: 'shutting_down' });
  });
});

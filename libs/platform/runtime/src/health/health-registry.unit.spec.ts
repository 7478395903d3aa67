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

  it('reports shutting_down once draining, even with healthy dependencies', async () => {
    const health = new HealthRegistry();
    health.register('bus', async () => undefined);
    health.startDraining();
    expect(await health.readiness()).toMatchObject({ ready: false, status: 'shutting_down' });
  });
});

import { freePort } from '@herald/testing';
import { KafkaBus } from './kafka-bus';

describe('KafkaBus health', () => {
  it('fails its health check promptly when no broker answers', async () => {
    const bus = new KafkaBus({ brokers: [`127.0.0.1:${await freePort()}`], clientId: 'herald-health-test' });
    await expect(bus.checkHealth(1_000)).rejects.toThrow();
    await bus.close().catch(() => undefined);
  });
});

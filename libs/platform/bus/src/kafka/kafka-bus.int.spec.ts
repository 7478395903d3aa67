import { createServer } from 'node:net';
import { KafkaBus } from './kafka-bus';

async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('KafkaBus health', () => {
  it('fails its health check promptly when no broker answers', async () => {
    const bus = new KafkaBus({ brokers: [`127.0.0.1:${await closedPort()}`], clientId: 'herald-health-test' });
    await expect(bus.checkHealth(1_000)).rejects.toThrow();
    await bus.close().catch(() => undefined);
  });
});

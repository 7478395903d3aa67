import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { TOPICS } from '@herald/contracts';
import { startTestHttpApp } from '@herald/runtime';
import { RunningProcess, createTemporaryDatabase, expectEventually, fetchJson, heraldEnv, startNodeEntrypoint, testInfrastructure } from '@herald/testing';
import { managementApi } from '../management-api.module';
import { WebhookSender } from './webhook-sender';
import { WebhookReceiver } from './testing/webhook-receiver';
import { outcomeOnTheBus } from './testing/status-outcomes';

const SENDER = 'libs/services/management-api/src/status-webhooks/testing/sender-process.ts';
const MESSAGES = 20;
const STATUSES = ['sent_by_vendor', 'delivered', 'seen'] as const;
const infra = testInfrastructure();
// A process of its own on a shared database: Postgres (PGlite has one owner).
const withPostgres = infra.databaseUrl ? describe : describe.skip;

withPostgres('the webhook sender killed with SIGKILL mid-round', () => {
  let database: { url: string; drop(): Promise<void> } | undefined;
  let receiver: WebhookReceiver | undefined;
  let sender: RunningProcess | undefined;

  afterAll(async () => {
    await sender?.stop('SIGKILL');
    await receiver?.close();
    await database?.drop();
  });

  it('loses nothing: every queued event reaches the receiver after the restart, in order per message', async () => {
    database = await createTemporaryDatabase(infra.databaseUrl as string);
    const secretsKey = randomBytes(32);
    const token = `hst_${randomBytes(24).toString('base64url')}`;
    const slow = await WebhookReceiver.start();
    receiver = slow;
    // Slow answers, so the kill finds webhooks in flight.
    slow.delayMs = 40;

    // Queue the events with management-api in this process, its sender stopped: they wait in Postgres.
    const app = await startTestHttpApp(managementApi, database.url, { env: { HERALD_BOOTSTRAP_SERVICE_TOKEN: token }, secretsKey });
    await app.get(WebhookSender).onModuleDestroy();
    const created = await fetchJson(`${app.url}v1/staging/webhook_endpoint/`, {
      method: 'POST',
      headers: { authorization: `ServiceToken ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: slow.url, event_types: [...STATUSES] }),
    });
    expect(created.status).toBe(201);
    slow.verifyWith((created.body as { secret: string }).secret);
    const sql = new Client({ connectionString: database.url });
    await sql.connect();
    try {
      const [{ id: workspaceId }] = (await sql.query<{ id: string }>(`SELECT id FROM management.workspaces WHERE slug = 'staging'`)).rows;
      const deliveries = Array.from({ length: MESSAGES }, () => randomUUID());
      await app.bus.publish(
        TOPICS.deliveryOutcome.name,
        STATUSES.flatMap((status, i) => deliveries.map((deliveryId) => outcomeOnTheBus(workspaceId, 'welcome', deliveryId, status, new Date(Date.UTC(2026, 0, 1, 0, 0, i))))),
      );
      const queued = async (): Promise<number> => Number((await sql.query(`SELECT count(*) AS n FROM management.webhook_deliveries`)).rows[0].n);
      await expectEventually(async () => expect(await queued()).toBe(MESSAGES * STATUSES.length));
      await app.close();

      const env = heraldEnv({ KILL_TEST_DATABASE_URL: database.url, KILL_TEST_SECRETS_KEY: secretsKey.toString('base64') });
      const first = startNodeEntrypoint('webhook-sender', SENDER, env);
      sender = first;
      // Kill it once part of the queue went out, with sends in flight.
      await expectEventually(() => expect(slow.received.length).toBeGreaterThanOrEqual(15), { timeoutMs: 60_000 });
      expect(await first.stop('SIGKILL')).toBe('SIGKILL');
      const beforeRestart = slow.distinctIds().length;
      expect(beforeRestart).toBeLessThan(MESSAGES * STATUSES.length);

      sender = startNodeEntrypoint('webhook-sender', SENDER, env);
      await expectEventually(() => expect(slow.distinctIds()).toHaveLength(MESSAGES * STATUSES.length), { timeoutMs: 60_000 });
      expect(slow.forgeries).toEqual([]);
      for (const deliveryId of deliveries) {
        const order = [...new Set(slow.received.filter((w) => w.event.delivery_id === deliveryId).map((w) => w.event.status))];
        expect(order).toEqual([...STATUSES]);
      }
      await expectEventually(async () => {
        const { rows } = await sql.query<{ state: string; n: string }>(`SELECT state, count(*) AS n FROM management.webhook_deliveries GROUP BY state`);
        expect(rows).toEqual([{ state: 'delivered', n: String(MESSAGES * STATUSES.length) }]);
      });
    } finally {
      await sql.end();
    }
  });
});

// Status webhooks: webhooks/s from delivery outcomes to a local receiver (every request
// verified with `standardwebhooks`), and the CPU each costs, beside a peer measured in the
// same run: a plain axios POST loop of the same signed bodies to the same receiver.
//   npm run bench:status-webhooks -- --messages 1000   (HERALD_BENCH_DATABASE_URL: Postgres, else PGlite)
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import axios from 'axios';
import { Client } from 'pg';
import { Agent } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { TOPICS } from '@herald/contracts';
import { EmbeddedPostgres } from '@herald/database';
import { startTestHttpApp } from '@herald/runtime';
import { createTemporaryDatabase, fetchJson } from '@herald/testing';
import { ManagementApiModule, WebhookReceiver, managementApi } from '@herald/management-api';
import { outcomeOnTheBus } from '../../libs/services/management-api/src/status-webhooks/testing/status-outcomes';

const STATUSES = ['sent_by_vendor', 'delivered', 'seen'] as const;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { messages: { type: 'string', default: '1000' }, concurrency: { type: 'string', default: '64' } } });
  const messages = Number(values.messages);
  const concurrency = Number(values.concurrency);
  const total = messages * STATUSES.length;
  const url = process.env.HERALD_BENCH_DATABASE_URL;
  const database = url ? await createTemporaryDatabase(url) : undefined;
  const embedded = database ? undefined : await EmbeddedPostgres.start();
  const databaseUrl = database?.url ?? (embedded as EmbeddedPostgres).url;
  const token = `hst_${randomBytes(24).toString('base64url')}`;
  const service = { ...managementApi, module: () => ManagementApiModule.register({ statusWebhooks: { batchSize: concurrency } }) };
  const app = await startTestHttpApp(service, databaseUrl, { env: { HERALD_BOOTSTRAP_SERVICE_TOKEN: token, HERALD_OUTBOUND_ALLOW: '127.0.0.1/32', HERALD_LOG_LEVEL: 'error' } });
  const receiver = await WebhookReceiver.start();
  const created = await fetchJson(`${app.url}v1/staging/webhook_endpoint/`, {
    method: 'POST',
    headers: { authorization: `ServiceToken ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, event_types: [...STATUSES] }),
  });
  const secret = (created.body as { secret: string }).secret;
  receiver.verifyWith(secret);
  const sql = new Client({ connectionString: databaseUrl });
  await sql.connect();
  const [{ id: workspaceId }] = (await sql.query<{ id: string }>(`SELECT id FROM management.workspaces WHERE slug = 'staging'`)).rows;
  await sql.end();

  // Herald: outcomes of `messages` deliveries (three statuses each) in, verified webhooks out.
  const outcomes = STATUSES.flatMap((status, i) =>
    Array.from({ length: messages }, (_, m) => outcomeOnTheBus(workspaceId, 'welcome', `bench-${m}`, status, new Date(Date.UTC(2026, 0, 1, 0, 0, i)))),
  );
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < outcomes.length; i += 500) await app.bus.publish(TOPICS.deliveryOutcome.name, outcomes.slice(i, i + 500));
  while (receiver.distinctIds().length < total) await new Promise((resolve) => setTimeout(resolve, 20));
  const heraldSeconds = (performance.now() - t0) / 1000;
  const heraldCpu = process.cpuUsage(cpu0);

  // Peer: the same bodies, signed, POSTed by a plain axios loop with the same concurrency.
  const bodies = receiver.received.slice(0, total).map((w) => ({ id: w.webhookId, body: JSON.stringify(w.event) }));
  const peerReceiver = await WebhookReceiver.start();
  peerReceiver.verifyWith(secret);
  const signer = new Webhook(secret);
  const client = axios.create({ httpAgent: new Agent({ keepAlive: true }) });
  const cpu1 = process.cpuUsage();
  const t1 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) {
        const { id, body } = bodies[next++];
        const at = new Date();
        await client.post(peerReceiver.url, body, {
          headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signer.sign(id, at, body) },
        });
      }
    }),
  );
  const peerSeconds = (performance.now() - t1) / 1000;
  const peerCpu = process.cpuUsage(cpu1);

  const cpuMs = (usage: NodeJS.CpuUsage): number => (usage.user + usage.system) / 1000;
  const heraldRate = total / heraldSeconds;
  const peerRate = total / peerSeconds;
  const result = {
    messages,
    webhooks: total,
    duplicates: receiver.received.length - total,
    forgeries: receiver.forgeries.length + peerReceiver.forgeries.length,
    herald: { webhooksPerSecond: Math.round(heraldRate), cpuMsPerWebhook: +(cpuMs(heraldCpu) / total).toFixed(3), database: url ? 'postgres' : 'pglite' },
    peer: { name: 'axios POST loop (signed, same receiver, no queue)', webhooksPerSecond: Math.round(peerRate), cpuMsPerWebhook: +(cpuMs(peerCpu) / total).toFixed(3) },
    ratio: +(heraldRate / peerRate).toFixed(2),
    note: 'CPU of this one process: management-api (consumer, queue, sender), the in-process bus and the receiver',
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  await peerReceiver.close();
  await receiver.close();
  await app.close();
  await database?.drop();
  await embedded?.stop();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

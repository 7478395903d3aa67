// Started as a process of its own by webhook-sender-kill.int.spec.ts: management-api on the
// test's database (its in-process bus carries nothing), so only its webhook sender works,
// sending what the test queued until the test kills it.
import { managementApi, ManagementApiModule } from '../../management-api.module';
import { startTestHttpApp } from '@herald/runtime';

async function main(): Promise<void> {
  const { KILL_TEST_DATABASE_URL: url, KILL_TEST_SECRETS_KEY: key } = process.env;
  if (!url || !key) throw new Error('KILL_TEST_DATABASE_URL and KILL_TEST_SECRETS_KEY are required');
  const service = {
    ...managementApi,
    // Small rounds and a short lease: the kill finds sends in flight, and the restart takes their claims over soon.
    module: () => ManagementApiModule.register({ statusWebhooks: { batchSize: 4, leaseMs: 1_500, requestTimeoutMs: 1_000, initialRetryDelayMs: 100, pollIntervalMs: 200 } }),
  };
  await startTestHttpApp(service, url, { env: { HERALD_OUTBOUND_ALLOW: '127.0.0.1/32' }, secretsKey: Buffer.from(key, 'base64') });
  process.stdout.write('sender ready\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`sender failed: ${String(error)}\n`);
  process.exit(1);
});

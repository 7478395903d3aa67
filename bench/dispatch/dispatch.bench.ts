// Benchmark of channel-dispatchers: delivery commands dispatched per second, per channel
// and vendor, through the whole service path (bus consumer, ledger claim in Postgres,
// rendering, the vendor call through the guarded outbound client or nodemailer, the
// outcome through the outbox and its relay) against local vendor servers:
//
//   email/smtp      a local SMTP server (smtp-server, AUTH PLAIN, no TLS)
//   email/sendgrid  a local HTTP server answering 202 as SendGrid does
//   sms/twilio      a local HTTP server answering 201 as Twilio does
//   inbox           Herald's own inbox (a row in dispatch.inbox_messages)
//
//   node -r ./tools/register.js bench/dispatch/dispatch.bench.ts
//   node -r ./tools/register.js bench/dispatch/dispatch.bench.ts -- --messages 500 --database embedded
//   node -r ./tools/register.js bench/dispatch/dispatch.bench.ts --help
//
// The service runs in this process on the in-process bus, with its database on the
// Postgres of HERALD_BENCH_DATABASE_URL (a temporary database, dropped at the end) or on
// an embedded PGlite. Commands of one channel are published all at once; the figure is
// commands per second from the first publish to the last outcome. Progress goes to
// stderr at least once a second; the Markdown table (and, with --json, one JSON line)
// to stdout. Figures and goals live in bench/RESULTS.md, never in tests.

import { randomBytes, randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import {
  Channel,
  DEFINITION_CHANGED_TYPE,
  DELIVERY_REQUESTED_TYPE,
  DefinitionChanged,
  DeliveryOutcome,
  DeliveryRequested,
  Envelope,
  TOPICS,
  deliveryTopic,
  envelopeOf,
} from '@herald/contracts';
import { InProcessBus, MessageBus } from '@herald/bus';
import { ChannelDispatchersModule, channelDispatchers } from '@herald/channel-dispatchers';
import { SecretBox, ServiceDefinition, TestHttpApp, ensureHeraldTopics, openTargetDatabase, startTestHttpApp } from '@herald/runtime';
import { LocalSmtpServer } from '../../libs/services/channel-dispatchers/src/testing/local-smtp-server';
import { RecordingServer } from '../../libs/services/channel-dispatchers/src/testing/recording-server';

// ---------------------------------------------------------------------------------
// Options

interface Options {
  readonly messages: number;
  readonly database: 'postgres' | 'embedded';
  readonly databaseUrl: string;
  readonly phaseTimeoutS: number;
  readonly maxSeconds: number;
  readonly json: boolean;
}

const MAX_MESSAGES = 100_000;

const USAGE = `Usage: node -r ./tools/register.js bench/dispatch/dispatch.bench.ts [options]

  --messages N               commands per channel and vendor (default 2000, at most ${MAX_MESSAGES})
  --database postgres|embedded
                             the service's database (default postgres: a temporary
                             database on HERALD_BENCH_DATABASE_URL)
  --phase-timeout N          seconds one channel may take (default 120)
  --max-seconds N            hard limit for the whole run (default 600)
  --json                     also print the results as one JSON line
  --help

Environment: HERALD_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).`;

class UsageError extends Error {}

function parseOptions(argv: readonly string[]): Options {
  const values = new Map<string, string>();
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') continue;
    if (arg === '--help') throw new UsageError('');
    if (arg === '--json') {
      json = true;
      continue;
    }
    if (!['--messages', '--database', '--phase-timeout', '--max-seconds'].includes(arg)) throw new UsageError(`unknown option ${arg}`);
    const value = argv[++i];
    if (value === undefined) throw new UsageError(`${arg} needs a value`);
    values.set(arg, value);
  }
  const database = values.get('--database') ?? 'postgres';
  if (database !== 'postgres' && database !== 'embedded') throw new UsageError('--database is postgres or embedded');
  return {
    messages: integer(values.get('--messages'), 2000, 1, MAX_MESSAGES, '--messages'),
    database,
    databaseUrl: process.env.HERALD_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    phaseTimeoutS: integer(values.get('--phase-timeout'), 120, 1, 3600, '--phase-timeout'),
    maxSeconds: integer(values.get('--max-seconds'), 600, 1, 7200, '--max-seconds'),
    json,
  };
}

function integer(text: string | undefined, fallback: number, min: number, max: number, name: string): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`${name} must be an integer from ${min} to ${max}`);
  return value;
}

// ---------------------------------------------------------------------------------
// Cases: one workspace per channel and vendor, so each routes to exactly that vendor

interface BenchCase {
  readonly channel: Channel;
  readonly vendor: string;
  readonly content: Record<string, unknown>;
  readonly identity: unknown;
  /** Undefined for the inbox, which works without configuration. */
  readonly announcement?: { readonly credentials: Record<string, unknown>; readonly baseUrl?: string; readonly settings?: Record<string, unknown> };
}

interface VendorServers {
  readonly smtp: LocalSmtpServer;
  readonly sendgrid: RecordingServer;
  readonly twilio: RecordingServer;
}

function benchCases(servers: VendorServers): BenchCase[] {
  const email = { subject: 'Welcome {{name}}', html: '<p>Hi {{name}}, your plan is {{plan}}.</p>', text: 'Hi {{name}}' };
  return [
    {
      channel: 'email',
      vendor: 'smtp',
      content: email,
      identity: 'ada@example.com',
      announcement: {
        credentials: { host: '127.0.0.1', port: servers.smtp.port, secure: false, username: 'mailer', password: 'secret', from: 'Acme <noreply@acme.test>' },
      },
    },
    {
      channel: 'email',
      vendor: 'sendgrid',
      content: email,
      identity: 'ada@example.com',
      announcement: { credentials: { api_key: 'SG.bench' }, baseUrl: servers.sendgrid.url, settings: { from: 'noreply@acme.test' } },
    },
    {
      channel: 'sms',
      vendor: 'twilio',
      content: { text: 'Hi {{name}}, your code is 1234' },
      identity: '+4915112345678',
      announcement: { credentials: { account_sid: `AC${'b'.repeat(32)}`, auth_token: 'tw-bench', from: '+14155550100' }, baseUrl: servers.twilio.url },
    },
    { channel: 'inbox', vendor: 'herald_inbox', content: { title: 'Welcome {{name}}', body: 'Your plan is {{plan}}.' }, identity: 'user-1' },
  ];
}

// ---------------------------------------------------------------------------------
// The service and its inputs

interface Harness {
  readonly app: TestHttpApp;
  readonly bus: MessageBus;
  readonly box: SecretBox;
  readonly databaseUrl: string;
  /** Outcomes by delivery id, as they arrive. */
  readonly outcomes: Map<string, DeliveryOutcome>;
  close(): Promise<void>;
}

async function startHarness(options: Options): Promise<Harness> {
  const secretsKey = randomBytes(32);
  const database = await openTargetDatabase(options.database === 'postgres' ? { kind: 'postgres', url: options.databaseUrl } : { kind: 'embedded' });
  const bus = new InProcessBus();
  await ensureHeraldTopics(bus, 3);
  const service: ServiceDefinition = { ...channelDispatchers, module: () => ChannelDispatchersModule.register() };
  // The vendor servers listen on loopback, which the outbound address rule refuses unless allowed.
  const app = await startTestHttpApp(service, database.url, { bus, secretsKey, env: { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8' } });
  const outcomes = new Map<string, DeliveryOutcome>();
  await bus.subscribe({
    groupId: 'bench-outcomes',
    topics: [TOPICS.deliveryOutcome.name],
    handler: async (message) => {
      const envelope = JSON.parse(message.value.toString('utf8')) as Envelope<DeliveryOutcome>;
      outcomes.set(envelope.payload.delivery_id, envelope.payload);
    },
  });
  return {
    app,
    bus,
    box: new SecretBox(secretsKey),
    databaseUrl: database.url,
    outcomes,
    close: async () => {
      await app.close();
      await bus.close();
      await database.dispose();
    },
  };
}

/** Announces the vendor as management-api does, and waits until the read model holds it. */
async function announceVendor(harness: Harness, workspaceId: string, benchCase: BenchCase, deadline: number): Promise<void> {
  const { announcement } = benchCase;
  if (!announcement) return;
  const vendorId = randomUUID();
  const payload: DefinitionChanged = {
    kind: 'vendor',
    change: 'upserted',
    workspace_id: workspaceId,
    workspace_slug: 'bench',
    id: `${benchCase.channel}/${benchCase.vendor}`,
    version: 1,
    document: {
      id: vendorId,
      channel: benchCase.channel,
      vendor: benchCase.vendor,
      is_enabled: true,
      priority: 1,
      base_url: announcement.baseUrl ?? null,
      settings: announcement.settings ?? {},
      credentials_sealed: harness.box.seal(JSON.stringify(announcement.credentials), `vendor:${vendorId}`).toString('base64'),
      version: 1,
    },
  };
  const messageId = randomUUID();
  await harness.bus.publish(TOPICS.definitionChanged.name, [
    { key: workspaceId, value: JSON.stringify(envelopeOf(DEFINITION_CHANGED_TYPE, 1, messageId, workspaceId, new Date(), payload)), headers: { 'message-id': messageId } },
  ]);
  const client = new Client({ connectionString: harness.databaseUrl });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query('SELECT 1 FROM dispatch.vendors WHERE workspace_id = $1 AND channel = $2 AND vendor = $3', [workspaceId, benchCase.channel, benchCase.vendor]);
      if (rows.length > 0) return;
      if (performance.now() > deadline) throw new Error(`the ${payload.id} announcement did not reach the read model in time`);
      await sleep(20);
    }
  } finally {
    await client.end();
  }
}

function command(benchCase: BenchCase, index: number): DeliveryRequested {
  return {
    delivery_id: randomUUID(),
    run_id: randomUUID(),
    message_id: randomUUID(),
    workspace_slug: 'bench',
    workflow: { slug: 'welcome', version: 1 },
    node_name: `send_${benchCase.channel}`,
    channel: benchCase.channel,
    recipient: { kind: 'user', distinct_id: `user-${index % 1000}` },
    destination: { identities: [benchCase.identity] },
    template: { slug: 'welcome', variant_id: 'v1', content: benchCase.content },
    render_data: { name: 'Ada', plan: 'pro', $recipient: { distinct_id: `user-${index % 1000}` } },
    attachments: [],
    requested_at: new Date().toISOString(),
  };
}

// ---------------------------------------------------------------------------------
// One channel

interface CaseResult {
  readonly channel: string;
  readonly vendor: string;
  readonly messages: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly failed: number;
}

async function runCase(harness: Harness, benchCase: BenchCase, options: Options): Promise<CaseResult> {
  const name = `${benchCase.channel}/${benchCase.vendor}`;
  const deadline = performance.now() + options.phaseTimeoutS * 1000;
  const workspaceId = randomUUID();
  await announceVendor(harness, workspaceId, benchCase, deadline);
  const commands = Array.from({ length: options.messages }, (_, index) => command(benchCase, index));
  const topic = deliveryTopic(benchCase.channel).name;
  const started = performance.now();
  for (let offset = 0; offset < commands.length; offset += 500) {
    await harness.bus.publish(
      topic,
      commands.slice(offset, offset + 500).map((item) => ({
        key: `${workspaceId}:${item.recipient.distinct_id ?? ''}`,
        value: JSON.stringify(envelopeOf(DELIVERY_REQUESTED_TYPE, 1, `cmd-${item.delivery_id}`, workspaceId, new Date(), item)),
        headers: { 'message-id': `cmd-${item.delivery_id}` },
      })),
    );
  }
  let lastReport = started;
  for (;;) {
    const done = commands.filter((item) => harness.outcomes.has(item.delivery_id)).length;
    const now = performance.now();
    if (done === commands.length) break;
    if (now > deadline) throw new Error(`${name}: ${done} of ${commands.length} outcomes after ${options.phaseTimeoutS} s`);
    if (now - lastReport >= 1000) {
      process.stderr.write(`  ${name}: ${done}/${commands.length} outcomes, ${Math.round(done / ((now - started) / 1000))} msg/s\n`);
      lastReport = now;
    }
    await sleep(10);
  }
  const seconds = (performance.now() - started) / 1000;
  const failed = commands.filter((item) => harness.outcomes.get(item.delivery_id)?.status === 'delivery_failure').length;
  return { channel: benchCase.channel, vendor: benchCase.vendor, messages: commands.length, seconds, perSecond: commands.length / seconds, failed };
}

// ---------------------------------------------------------------------------------
// Main

function table(results: readonly CaseResult[], options: Options): string {
  const lines = [
    `Dispatch, ${options.messages} commands per channel, database ${options.database}, in-process bus; ${os.cpus().length} CPUs, Node ${process.version}`,
    '',
    '| Channel | Vendor | Commands | Seconds | msg/s | Failed |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
    ...results.map((r) => `| ${r.channel} | ${r.vendor} | ${r.messages} | ${r.seconds.toFixed(2)} | ${Math.round(r.perSecond).toLocaleString('en-US')} | ${r.failed} |`),
  ];
  return lines.join('\n');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function main(): Promise<void> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    if (error.message) process.stderr.write(`${error.message}\n\n`);
    process.stdout.write(`${USAGE}\n`);
    process.exitCode = error.message ? 2 : 0;
    return;
  }
  const hardLimit = setTimeout(() => {
    process.stderr.write(`hard limit of ${options.maxSeconds} s reached; stopping\n`);
    process.exit(1);
  }, options.maxSeconds * 1000);
  hardLimit.unref();

  process.stderr.write('starting local vendor servers and channel-dispatchers\n');
  const servers: VendorServers = {
    smtp: await LocalSmtpServer.start({ username: 'mailer', password: 'secret' }),
    sendgrid: await RecordingServer.start({ status: 202, headers: { 'x-message-id': 'sg-bench' } }),
    twilio: await RecordingServer.start({ status: 201, body: { sid: 'SM-bench' } }),
  };
  let harness: Harness | undefined;
  try {
    harness = await startHarness(options);
    const results: CaseResult[] = [];
    for (const benchCase of benchCases(servers)) {
      process.stderr.write(`${benchCase.channel}/${benchCase.vendor}: ${options.messages} commands\n`);
      results.push(await runCase(harness, benchCase, options));
    }
    process.stdout.write(`${table(results, options)}\n`);
    if (options.json) process.stdout.write(`${JSON.stringify({ bench: 'dispatch', options, results })}\n`);
  } finally {
    await harness?.close();
    await Promise.all([servers.smtp.close(), servers.sendgrid.close(), servers.twilio.close()]);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`dispatch bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

// Benchmark of channel-dispatchers: delivery commands dispatched per second, per channel
// and vendor, through the whole service path (bus consumer, ledger claim in Postgres,
// rendering, the vendor call through the guarded outbound client or Herald's SMTP client, the
// outcome through the outbox and its relay) against local vendor servers, which run in
// a child process of their own (vendor-servers.ts: a vendor is another system, so its
// CPU is not charged to Herald or to the peer):
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
// Each vendor case also runs a peer in the same run, against the same local server: the
// floor of what the protocol costs here without Herald. SMTP: nodemailer's pooled
// transport (the same pool settings the SMTP vendor uses) sending the same messages
// directly: the usual Node client, not a floor now that the vendor has a leaner one; HTTP vendors: a bare keep-alive node:http client posting the vendor's request
// shape. Both keep the same number of sends in flight as the dispatcher's per-vendor
// bound. The table gives Herald's rate over the peer's, and the CPU each spent per
// message: this process's (the service and the bench's outcome consumer; the peer's:
// its client) and, with a local Postgres, its backends' for the service's database; and
// the vendor servers' process, apart. On a shared machine the rates move with the load;
// the CPU per message much less, so it says what the pipeline costs.
//
// The service runs in this process on the in-process bus, with its database on the
// Postgres of HERALD_BENCH_DATABASE_URL (a temporary database, dropped at the end) or on
// an embedded PGlite. Commands of one channel are published all at once; the figure is
// commands per second from the first publish to the last outcome. Progress goes to
// stderr at least once a second; the Markdown table (and, with --json, one JSON line)
// to stdout. Figures and goals live in bench/RESULTS.md, never in tests.

import { ChildProcess, fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import nodemailer from 'nodemailer';
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
import { createOutboundHttp } from '@herald/outbound-http';
import { ChannelDispatchersModule, channelDispatchers } from '@herald/channel-dispatchers';
import { DEFAULT_DISPATCH_OPTIONS } from '../../libs/services/channel-dispatchers/src/dispatch/dispatch-options';
import { SecretBox, ServiceDefinition, TestHttpApp, ensureHeraldTopics, openTargetDatabase, startTestHttpApp } from '@herald/runtime';
import { SMTP_CONNECTIONS } from '../../libs/services/channel-dispatchers/src/vendors/email/smtp-vendor';
import { smtpSocket } from './nodemailer-socket';
import type { VendorServersCommand, VendorServersMessage } from './vendor-servers';

// ---------------------------------------------------------------------------------
// Options

interface Options {
  readonly messages: number;
  readonly database: 'postgres' | 'embedded';
  readonly databaseUrl: string;
  readonly phaseTimeoutS: number;
  readonly maxSeconds: number;
  readonly partitions: number;
  /** Vendors to run (all when empty). */
  readonly only: readonly string[];
  readonly json: boolean;
  /** Skip the peers (to profile Herald's phase alone). */
  readonly noPeers: boolean;
}

const MAX_MESSAGES = 100_000;

const USAGE = `Usage: node -r ./tools/register.js bench/dispatch/dispatch.bench.ts [options]

  --messages N               commands per channel and vendor (default 2000, at most ${MAX_MESSAGES})
  --database postgres|embedded
                             the service's database (default postgres: a temporary
                             database on HERALD_BENCH_DATABASE_URL)
  --phase-timeout N          seconds one channel may take (default 120)
  --partitions N             partitions per topic (default 12, HERALD_KAFKA_PARTITIONS's default)
  --only V[,V...]            only these vendors (smtp, sendgrid, twilio, herald_inbox)
  --max-seconds N            hard limit for the whole run (default 600)
  --json                     also print the results as one JSON line
  --no-peers                 skip the peers (to profile Herald alone)
  --help

Environment: HERALD_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).`;

class UsageError extends Error {}

function parseOptions(argv: readonly string[]): Options {
  const values = new Map<string, string>();
  let json = false;
  let noPeers = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') continue;
    if (arg === '--help') throw new UsageError('');
    if (arg === '--json') {
      json = true;
      continue;
    }
    if (arg === '--no-peers') {
      noPeers = true;
      continue;
    }
    if (!['--messages', '--database', '--phase-timeout', '--max-seconds', '--partitions', '--only'].includes(arg)) throw new UsageError(`unknown option ${arg}`);
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
    partitions: integer(values.get('--partitions'), 12, 1, 100, '--partitions'),
    only: (values.get('--only') ?? '').split(',').filter((vendor) => vendor !== ''),
    json,
    noPeers,
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
  /** Sends message `index` to the same server without Herald; undefined where there is no peer (the inbox). */
  readonly peer?: PeerSender;
  /** HTTP vendors: the same request through the general guarded outbound client (axios) alone: what that client costs. */
  readonly guardedPeer?: PeerSender;
}

interface PeerSender {
  send(index: number): Promise<void>;
  close(): void;
}

/** The local vendor servers, running in a child process (vendor-servers.ts). */
interface VendorServers {
  readonly smtpPort: number;
  readonly sendgridUrl: string;
  readonly twilioUrl: string;
  /** The CPU the vendor servers' process has used so far, in microseconds. */
  cpuMicros(): Promise<number>;
  close(): Promise<void>;
}

async function startVendorServers(): Promise<VendorServers> {
  const child: ChildProcess = fork(path.join(__dirname, 'vendor-servers.ts'), [], {
    execArgv: ['-r', path.join(__dirname, '..', '..', 'tools', 'register.js')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const command = (message: VendorServersCommand): void => void child.send(message);
  const next = <K extends VendorServersMessage['kind']>(kind: K): Promise<Extract<VendorServersMessage, { kind: K }>> =>
    new Promise((resolve, reject) => {
      const onMessage = (message: VendorServersMessage): void => {
        if (message.kind !== kind) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message as Extract<VendorServersMessage, { kind: K }>);
      };
      const onExit = (code: number | null): void => reject(new Error(`the vendor servers' process exited (${code ?? 'signal'})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const ready = await next('ready');
  return {
    smtpPort: ready.smtpPort,
    sendgridUrl: ready.sendgridUrl,
    twilioUrl: ready.twilioUrl,
    cpuMicros: async () => {
      const answer = next('cpu');
      command({ kind: 'cpu' });
      return (await answer).micros;
    },
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      command({ kind: 'close' });
      await exited;
    },
  };
}

function benchCases(servers: VendorServers): BenchCase[] {
  const email = { subject: 'Welcome {{name}}', html: '<p>Hi {{name}}, your plan is {{plan}}.</p>', text: 'Hi {{name}}' };
  const twilioSid = `AC${'b'.repeat(32)}`;
  return [
    {
      channel: 'email',
      vendor: 'smtp',
      content: email,
      identity: 'ada@example.com',
      announcement: {
        credentials: { host: '127.0.0.1', port: servers.smtpPort, secure: false, username: 'mailer', password: 'secret', from: 'Acme <noreply@acme.test>' },
      },
      peer: smtpPeer(servers.smtpPort),
    },
    {
      channel: 'email',
      vendor: 'sendgrid',
      content: email,
      identity: 'ada@example.com',
      announcement: { credentials: { api_key: 'SG.bench' }, baseUrl: servers.sendgridUrl, settings: { from: 'noreply@acme.test' } },
      guardedPeer: guardedHttpPeer(servers.sendgridUrl, '/v3/mail/send', 'application/json'),
      peer: httpPeer(servers.sendgridUrl, '/v3/mail/send', 'application/json', () =>
        JSON.stringify({
          personalizations: [{ to: [{ email: 'ada@example.com' }] }],
          from: { email: 'noreply@acme.test' },
          subject: 'Welcome Ada',
          content: [
            { type: 'text/plain', value: 'Hi Ada' },
            { type: 'text/html', value: '<p>Hi Ada, your plan is pro.</p>' },
          ],
        }),
      ),
    },
    {
      channel: 'sms',
      vendor: 'twilio',
      content: { text: 'Hi {{name}}, your code is 1234' },
      identity: '+4915112345678',
      announcement: { credentials: { account_sid: twilioSid, auth_token: 'tw-bench', from: '+14155550100' }, baseUrl: servers.twilioUrl },
      guardedPeer: guardedHttpPeer(servers.twilioUrl, `/2010-04-01/Accounts/${twilioSid}/Messages.json`, 'application/x-www-form-urlencoded'),
      peer: httpPeer(servers.twilioUrl, `/2010-04-01/Accounts/${twilioSid}/Messages.json`, 'application/x-www-form-urlencoded', () =>
        new URLSearchParams({ To: '+4915112345678', From: '+14155550100', Body: 'Hi Ada, your code is 1234' }).toString(),
      ),
    },
    { channel: 'inbox', vendor: 'herald_inbox', content: { title: 'Welcome {{name}}', body: 'Your plan is {{plan}}.' }, identity: 'user-1' },
  ];
}

/** nodemailer's pooled transport with the SMTP vendor's pool settings, on a socket with Nagle off and writes gathered per turn (nodemailer-socket.ts), straight to the server. */
function smtpPeer(port: number): PeerSender {
  const transport = nodemailer.createTransport({
    pool: true,
    host: '127.0.0.1',
    port,
    secure: false,
    auth: { user: 'mailer', pass: 'secret' },
    maxConnections: SMTP_CONNECTIONS,
    maxMessages: 1_000,
    getSocket: smtpSocket('127.0.0.1', port, 10_000),
  });
  return {
    send: async (index) => {
      await transport.sendMail({
        from: 'Acme <noreply@acme.test>',
        to: 'ada@example.com',
        subject: 'Welcome Ada',
        html: '<p>Hi Ada, your plan is pro.</p>',
        text: 'Hi Ada',
        messageId: `<peer-${index}@bench>`,
      });
    },
    close: () => transport.close(),
  };
}

/** A bare keep-alive HTTP client posting the vendor's request shape; a non-2xx answer is an error. */
function httpPeer(baseUrl: string, path: string, contentType: string, body: () => string): PeerSender {
  const agent = new Agent({ keepAlive: true });
  const url = new URL(path, baseUrl);
  return {
    send: () =>
      new Promise<void>((resolve, reject) => {
        const payload = body();
        const req = httpRequest(url, { method: 'POST', agent, headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(payload), authorization: 'Bearer bench' } }, (res) => {
          res.resume();
          res.on('end', () => ((res.statusCode ?? 0) < 300 ? resolve() : reject(new Error(`peer got ${res.statusCode}`))));
        });
        req.on('error', reject);
        req.end(payload);
      }),
    close: () => agent.destroy(),
  };
}

/** The general guarded outbound client (axios over the guarded keep-alive agents), which the HTTP vendors called through before they made plain node:http requests on its agents. */
function guardedHttpPeer(baseUrl: string, path: string, contentType: string): PeerSender {
  const client = createOutboundHttp({ allow: ['127.0.0.0/8'], maxRedirects: 0 });
  const url = new URL(path, baseUrl).href;
  const raw = contentType === 'application/json' ? JSON.stringify({ subject: 'Welcome Ada', text: 'Hi Ada' }) : 'To=%2B4915112345678&Body=Hi+Ada';
  return {
    send: async () => {
      const result = await client.send({ url, method: 'POST', headers: { authorization: 'Bearer bench' }, body: { raw, contentType } });
      if (!result.ok) throw new Error(`guarded peer failed: ${result.failure.message}`);
    },
    close: () => client.close(),
  };
}

interface PeerResult {
  readonly perSecond: number;
  /** This process's CPU per message sent, in microseconds (the peer's client). */
  readonly cpuMicrosPerMessage: number;
  /** The vendor servers' process's CPU per message sent. */
  readonly vendorCpuMicrosPerMessage: number;
}

/** Sends `messages` through the peer, keeping the dispatcher's per-vendor bound of sends in flight. */
async function runPeer(peer: PeerSender, messages: number, servers: VendorServers): Promise<PeerResult> {
  const vendorCpu = await servers.cpuMicros();
  const started = performance.now();
  const cpu = process.cpuUsage();
  let next = 0;
  let failed = 0;
  const worker = async (): Promise<void> => {
    while (next < messages) await peer.send(next++).catch(() => void failed++);
  };
  await Promise.all(Array.from({ length: Math.min(messages, DEFAULT_DISPATCH_OPTIONS.maxCallsPerVendor) }, worker));
  // A failed send (a timeout under load) is counted, not fatal: the figure counts sends that went through.
  if (failed > 0) process.stderr.write(`  peer: ${failed} of ${messages} sends failed\n`);
  const sent = Math.max(1, messages - failed);
  const perSecond = (messages - failed) / ((performance.now() - started) / 1000);
  const cpuMicrosPerMessage = cpuMicros(process.cpuUsage(cpu)) / sent;
  return { perSecond, cpuMicrosPerMessage, vendorCpuMicrosPerMessage: ((await servers.cpuMicros()) - vendorCpu) / sent };
}

function cpuMicros(usage: NodeJS.CpuUsage): number {
  return usage.user + usage.system;
}

/**
 * CPU the Postgres backends serving the bench's database have used so far, in
 * microseconds, read from /proc: only when Postgres runs on this machine (undefined
 * otherwise, or for PGlite, whose work is in this process already). The server's shared
 * processes (WAL writer, checkpointer, autovacuum) serve every database and are left out.
 */
async function postgresBackendCpuMicros(harness: Harness, options: Options): Promise<number | undefined> {
  if (options.database !== 'postgres' || !['127.0.0.1', 'localhost', '::1'].includes(new URL(harness.databaseUrl).hostname)) return undefined;
  const client = new Client({ connectionString: harness.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    const ticksPerSecond = 100; // USER_HZ on Linux
    let ticks = 0;
    for (const { pid } of rows) {
      try {
        // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
        ticks += Number(fields[11]) + Number(fields[12]);
      } catch {
        return undefined;
      }
    }
    return (ticks / ticksPerSecond) * 1e6;
  } finally {
    await client.end();
  }
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
  /** Resolves once every one of `deliveryIds` has an outcome; counted as they arrive, not polled. */
  awaitOutcomes(deliveryIds: readonly string[]): { readonly done: Promise<void>; readonly waiting: () => number };
  close(): Promise<void>;
}

async function startHarness(options: Options): Promise<Harness> {
  const secretsKey = randomBytes(32);
  const database = await openTargetDatabase(options.database === 'postgres' ? { kind: 'postgres', url: options.databaseUrl } : { kind: 'embedded' });
  const bus = new InProcessBus();
  await ensureHeraldTopics(bus, options.partitions);
  const service: ServiceDefinition = { ...channelDispatchers, module: () => ChannelDispatchersModule.register() };
  // The vendor servers listen on loopback, which the outbound address rule refuses unless allowed.
  const app = await startTestHttpApp(service, database.url, { bus, secretsKey, env: { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8' } });
  const outcomes = new Map<string, DeliveryOutcome>();
  let awaited: { readonly waiting: Set<string>; readonly resolve: () => void } | undefined;
  await bus.subscribe({
    groupId: 'bench-outcomes',
    topics: [TOPICS.deliveryOutcome.name],
    handler: async (message) => {
      const envelope = JSON.parse(message.value.toString('utf8')) as Envelope<DeliveryOutcome>;
      outcomes.set(envelope.payload.delivery_id, envelope.payload);
      if (awaited?.waiting.delete(envelope.payload.delivery_id) && awaited.waiting.size === 0) awaited.resolve();
    },
  });
  // The bench's own work per outcome is in Herald's CPU figure: an outcome is counted as it arrives (polling every id every 10 ms cost 5% of the process).
  const awaitOutcomes = (deliveryIds: readonly string[]): { done: Promise<void>; waiting: () => number } => {
    const waiting = new Set(deliveryIds.filter((id) => !outcomes.has(id)));
    const done = new Promise<void>((resolve) => {
      awaited = { waiting, resolve };
      if (waiting.size === 0) resolve();
    });
    return { done, waiting: () => waiting.size };
  };
  return {
    app,
    bus,
    box: new SecretBox(secretsKey),
    databaseUrl: database.url,
    outcomes,
    awaitOutcomes,
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
  /** Commands whose outcome was a failure, or a retry still pending at the end. */
  readonly failed: number;
  /** The peer's messages per second against the same server, measured right before. */
  readonly peerPerSecond?: number;
  readonly guardedPerSecond?: number;
  /** CPU per command in microseconds: this process (the service, the bench's outcome consumer) during the phase. */
  readonly cpuMicrosPerMessage: number;
  /** The same for the Postgres backends of the service's database, where they can be read. */
  readonly postgresCpuMicrosPerMessage?: number;
  /** The same for the vendor servers' process (not Herald's: shown to compare with the peer's). */
  readonly vendorCpuMicrosPerMessage: number;
  readonly peerCpuMicrosPerMessage?: number;
  readonly peerVendorCpuMicrosPerMessage?: number;
}

async function runCase(harness: Harness, servers: VendorServers, benchCase: BenchCase, options: Options): Promise<CaseResult> {
  const name = `${benchCase.channel}/${benchCase.vendor}`;
  const peer = benchCase.peer && !options.noPeers ? await runPeer(benchCase.peer, options.messages, servers) : undefined;
  if (peer !== undefined) process.stderr.write(`  ${name} peer: ${Math.round(peer.perSecond)} msg/s\n`);
  benchCase.peer?.close();
  const guardedPerSecond = benchCase.guardedPeer && !options.noPeers ? (await runPeer(benchCase.guardedPeer, options.messages, servers)).perSecond : undefined;
  if (guardedPerSecond !== undefined) process.stderr.write(`  ${name} guarded client alone: ${Math.round(guardedPerSecond)} msg/s\n`);
  benchCase.guardedPeer?.close();
  const deadline = performance.now() + options.phaseTimeoutS * 1000;
  const workspaceId = randomUUID();
  await announceVendor(harness, workspaceId, benchCase, deadline);
  const commands = Array.from({ length: options.messages }, (_, index) => command(benchCase, index));
  const topic = deliveryTopic(benchCase.channel).name;
  const outcomes = harness.awaitOutcomes(commands.map((item) => item.delivery_id));
  let finished = false;
  void outcomes.done.then(() => (finished = true));
  const postgresCpuBefore = await postgresBackendCpuMicros(harness, options);
  const vendorCpuBefore = await servers.cpuMicros();
  const cpu = process.cpuUsage();
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
  while (!finished) {
    await Promise.race([outcomes.done, sleep(1000)]);
    const done = commands.length - outcomes.waiting();
    const now = performance.now();
    if (finished) break;
    if (now > deadline) throw new Error(`${name}: ${done} of ${commands.length} outcomes after ${options.phaseTimeoutS} s`);
    process.stderr.write(`  ${name}: ${done}/${commands.length} outcomes, ${Math.round(done / ((now - started) / 1000))} msg/s\n`);
  }
  const seconds = (performance.now() - started) / 1000;
  const cpuMicrosPerMessage = cpuMicros(process.cpuUsage(cpu)) / commands.length;
  const vendorCpuMicrosPerMessage = ((await servers.cpuMicros()) - vendorCpuBefore) / commands.length;
  const postgresCpuAfter = await postgresBackendCpuMicros(harness, options);
  const postgresCpuMicrosPerMessage =
    postgresCpuBefore === undefined || postgresCpuAfter === undefined ? undefined : (postgresCpuAfter - postgresCpuBefore) / commands.length;
  const failures = commands.flatMap((item) => {
    const outcome = harness.outcomes.get(item.delivery_id);
    return outcome?.status === 'delivery_failure' || outcome?.status === 'retrying' ? [outcome.error?.message ?? outcome.status] : [];
  });
  for (const reason of new Set(failures)) process.stderr.write(`  ${name}: failed or retrying: ${reason}\n`);
  const failed = failures.length;
  return {
    channel: benchCase.channel,
    vendor: benchCase.vendor,
    messages: commands.length,
    seconds,
    perSecond: commands.length / seconds,
    failed,
    peerPerSecond: peer?.perSecond,
    guardedPerSecond,
    cpuMicrosPerMessage,
    postgresCpuMicrosPerMessage,
    vendorCpuMicrosPerMessage,
    peerCpuMicrosPerMessage: peer?.cpuMicrosPerMessage,
    peerVendorCpuMicrosPerMessage: peer?.vendorCpuMicrosPerMessage,
  };
}

// ---------------------------------------------------------------------------------
// Main

function table(results: readonly CaseResult[], options: Options): string {
  const lines = [
    `Dispatch, ${options.messages} commands per channel, database ${options.database}, in-process bus with ${options.partitions} partitions; ${os.cpus().length} CPUs, Node ${process.version}; load average ${os.loadavg().map((n) => n.toFixed(1)).join(' ')}`,
    '',
    '| Channel | Vendor | Commands | Seconds | msg/s | Failed | Peer msg/s | Herald / peer | Axios guarded client alone msg/s | CPU µs/msg: process + Postgres backends | Peer CPU µs/msg | Vendor server CPU µs/msg: Herald\'s phase, peer\'s |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...results.map((r) => {
      const peer = r.peerPerSecond === undefined ? '–' : Math.round(r.peerPerSecond).toLocaleString('en-US');
      const ratio = r.peerPerSecond === undefined ? '–' : `${(r.perSecond / r.peerPerSecond).toFixed(2)}×`;
      const guarded = r.guardedPerSecond === undefined ? '–' : Math.round(r.guardedPerSecond).toLocaleString('en-US');
      const postgresCpu = r.postgresCpuMicrosPerMessage === undefined ? '' : ` + ${Math.round(r.postgresCpuMicrosPerMessage)}`;
      const peerCpu = r.peerCpuMicrosPerMessage === undefined ? '–' : String(Math.round(r.peerCpuMicrosPerMessage));
      const vendorCpu = `${Math.round(r.vendorCpuMicrosPerMessage)}, ${r.peerVendorCpuMicrosPerMessage === undefined ? '–' : Math.round(r.peerVendorCpuMicrosPerMessage)}`;
      return `| ${r.channel} | ${r.vendor} | ${r.messages} | ${r.seconds.toFixed(2)} | ${Math.round(r.perSecond).toLocaleString('en-US')} | ${r.failed} | ${peer} | ${ratio} | ${guarded} | ${Math.round(r.cpuMicrosPerMessage)}${postgresCpu} | ${peerCpu} | ${vendorCpu} |`;
    }),
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
  const servers = await startVendorServers();
  let harness: Harness | undefined;
  try {
    harness = await startHarness(options);
    const results: CaseResult[] = [];
    for (const benchCase of benchCases(servers).filter((each) => options.only.length === 0 || options.only.includes(each.vendor))) {
      process.stderr.write(`${benchCase.channel}/${benchCase.vendor}: ${options.messages} commands\n`);
      results.push(await runCase(harness, servers, benchCase, options));
    }
    process.stdout.write(`${table(results, options)}\n`);
    if (options.json) process.stdout.write(`${JSON.stringify({ bench: 'dispatch', options, results })}\n`);
  } finally {
    await harness?.close();
    await servers.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`dispatch bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

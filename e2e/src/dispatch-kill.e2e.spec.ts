import { randomBytes, randomUUID } from 'node:crypto';
import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { DeliveryRequested, TOPICS, deliveryTopic, parseEnvelope } from '@herald/contracts';
import { KafkaBus, MessageBus, NamespacedBus, Subscription } from '@herald/bus';
import { SecretBox, ensureHeraldTopics } from '@herald/runtime';
import {
  RunningProcess,
  acceptedTrigger,
  createTemporaryDatabase,
  expectEventually,
  freePort,
  heraldEnv,
  startNodeEntrypoint,
  testInfrastructure,
  uniqueName,
  waitUntilReady,
} from '@herald/testing';
import { ACCOUNT_CATEGORIES, approvedVariant, definitionAnnouncer } from './announced-definitions';
import { describeSpread, killCount, killSeed, percentile, seededRandom, sleep } from './kill-helpers';

const infra = testInfrastructure();
const distributed = infra.kafkaBrokers && infra.databaseUrl ? describe : describe.skip;

/** SIGKILLs of each process (workflow-engine, channel-dispatchers), on two schedules of their own. */
const KILLS = killCount(6);
/**
 * Each process runs this long (ms, seeded) after it is ready before it is killed again.
 * A restart takes about 11 s (the dead member's Kafka session must time out before the
 * new one is in its groups), so the dispatcher is up about a quarter of the kill phase.
 */
const UPTIME_MIN_MS = 1_500;
const UPTIME_MAX_MS = 5_000;
/** Longest a dispatcher kill waits for the dispatcher to hold a claim (see killRepeatedly). */
const CLAIM_WAIT_MS = 30_000;
/** Triggers published every TICK_MS while the kills go on: a steady 8 per second, two deliveries each. */
const TRIGGERS_PER_TICK = 2;
const TICK_MS = 250;
/** The acceptance criterion of issue 14: no delivery waits longer than this after its dispatcher restarts. */
const MAX_WAIT_AFTER_RESTART_MS = 30_000;
const PARTITIONS = 6;
/**
 * How long the e-mail vendor takes to answer: kills find calls in flight, yet a restarted
 * dispatcher works off the backlog of its downtime quickly (each partition sends in turn).
 */
const VENDOR_MIN_MS = 5;
const VENDOR_MAX_MS = 50;

interface Slot {
  readonly service: 'workflow-engine' | 'channel-dispatchers';
  readonly port: number;
  process?: RunningProcess;
  /** When each start answered ready (epoch ms), in order. */
  readonly readyAt: number[];
  readonly killedAt: number[];
  /** JSON log lines of the processes that ended. */
  readonly logs: Array<Record<string, unknown>>;
}

interface VendorCall {
  readonly at: number;
  readonly idempotencyKey: string;
  readonly to: string;
}

const template = {
  slug: 'dk-note',
  enabled_channels: ['inbox', 'email'],
  variants: [
    approvedVariant('inbox', 'inbox', { title: 'Hello {{name}}', body: 'Note {{n}}' }),
    approvedVariant('email', 'email', { subject: 'Note {{n}}', text: 'Hi {{name}}, note {{n}}' }),
  ],
};

/**
 * workflow-engine and channel-dispatchers each killed with SIGKILL again and again, at
 * seeded random moments, on the real broker and Postgres, while a steady stream of
 * triggers flows through both: trigger → send_inbox → send_email. The inbox dedupes by
 * our idempotency key and so does the e-mail vendor (Resend, played by a local server
 * that records every call), so a claim a dispatcher died on is repeated, not reported as
 * "outcome unknown". Afterwards every trigger was delivered exactly once on both
 * channels (inbox rows; distinct Idempotency-Keys at the vendor), and no delivery
 * waited more than 30 s after its dispatcher's last restart before it.
 *
 * A killed process's consumers hold their partitions until the Kafka session times out
 * (10 s); the restarted process joins its groups and is ready in the meantime, and gets
 * the uncommitted commands of its previous run redelivered. Their claims are resumed at
 * once: the dead process's owner lock went with its database session.
 */
distributed('channel-dispatchers and workflow-engine killed under a steady stream of triggers', () => {
  const namespace = uniqueName('dispkill');
  const workspace = randomUUID();
  const secretsKeyBytes = randomBytes(32);
  const secretsKey = secretsKeyBytes.toString('base64');
  const seed = killSeed();
  const random = seededRandom(seed);
  /** distinct_id of each accepted trigger (one recipient per trigger). */
  const triggers: string[] = [];
  const vendorCalls: VendorCall[] = [];
  /** The first time each delivery command reached its topic (the producer's timestamp), by delivery_id. */
  const commandPublishedAt = new Map<string, { at: number; channel: string; distinctId: string }>();
  let commandReader: Subscription | undefined;
  const engine: Slot = { service: 'workflow-engine', port: 0, readyAt: [], killedAt: [], logs: [] };
  const dispatcher: Slot = { service: 'channel-dispatchers', port: 0, readyAt: [], killedAt: [], logs: [] };
  let bus: MessageBus;
  let sqlClient: Client;
  let databaseUrl: string;
  let dropDatabase: (() => Promise<void>) | undefined;
  let vendorServer: Server | undefined;

  const log = (line: string): void => {
    process.stdout.write(`dispatch kill test: ${line}\n`);
  };
  const sql = async <T>(text: string, params: unknown[] = []): Promise<T[]> => (await sqlClient.query(text, params)).rows as T[];

  const start = async (slot: Slot): Promise<number> => {
    const begun = Date.now();
    slot.process = startNodeEntrypoint(
      `${slot.service}-${slot.readyAt.length + 1}`,
      `apps/${slot.service}/src/main.ts`,
      heraldEnv({
        HERALD_KAFKA_BROKERS: (infra.kafkaBrokers as readonly string[]).join(','),
        HERALD_KAFKA_NAMESPACE: namespace,
        HERALD_KAFKA_PARTITIONS: String(PARTITIONS),
        HERALD_DATABASE_URL: databaseUrl,
        HERALD_SECRETS_KEY: secretsKey,
        HERALD_PORT: String(slot.port),
        HERALD_OUTBOUND_ALLOW: '127.0.0.0/8',
        // info for the dispatcher: its log says how each claim of a dead run was resumed.
        HERALD_LOG_LEVEL: slot.service === 'channel-dispatchers' ? 'info' : 'warn',
      }),
    );
    await waitUntilReady(slot.process, `http://127.0.0.1:${slot.port}/`);
    slot.readyAt.push(Date.now());
    return Date.now() - begun;
  };

  const kill = async (slot: Slot, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    const running = slot.process;
    slot.process = undefined;
    if (!running) return;
    if (signal === 'SIGKILL') slot.killedAt.push(Date.now());
    await running.stop(signal);
    slot.logs.push(...running.logLines());
  };

  /** Claims each dispatcher kill left `queued` or `sending` (read while no dispatcher runs). */
  const claimsLeftByKills: number[] = [];
  const claimsInFlight = async (): Promise<number> => (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM dispatch.deliveries WHERE status IN ('queued', 'sending')`))[0].n;

  /**
   * Kills the process of `slot` once per uptime, that long after it is ready, and restarts
   * it at once. A dispatcher is killed at the first moment after its uptime that it holds a
   * claim (within 30 s), so that the kills leave claims behind: while the engine is being
   * killed too, its group cannot settle (a killed member holds its partitions for the
   * 10 s session timeout), so on a fast machine no delivery command may come for a while.
   */
  const killRepeatedly = async (slot: Slot, uptimes: readonly number[]): Promise<number[]> => {
    const restarts: number[] = [];
    for (const uptime of uptimes) {
      await sleep(uptime);
      for (const deadline = Date.now() + CLAIM_WAIT_MS; slot === dispatcher && Date.now() < deadline && (await claimsInFlight()) === 0; ) await sleep(10);
      await kill(slot);
      if (slot === dispatcher) claimsLeftByKills.push(await claimsInFlight());
      restarts.push(await start(slot));
    }
    return restarts;
  };

  const announce = definitionAnnouncer(() => bus, workspace);

  const publishTriggers = async (count: number): Promise<void> => {
    const distinctIds = Array.from({ length: count }, () => `dk-${triggers.length + count}-${randomUUID().slice(0, 8)}`);
    const messages = distinctIds.map((distinctId, i) => {
      const recipient = { kind: 'user' as const, distinct_id: distinctId, is_transient: false, inline: true, channels: { email: [`${distinctId}@example.com`] }, properties: { name: distinctId } };
      return acceptedTrigger(workspace, 'dk-flow', recipient, { n: triggers.length + i }).message;
    });
    await bus.publish(TOPICS.triggerAccepted.name, messages);
    // Accepted once the publish resolved (acknowledged by the broker), as ingest-api answers 202.
    triggers.push(...distinctIds);
  };

  beforeAll(async () => {
    const database = await createTemporaryDatabase(infra.databaseUrl as string, 'herald_dispkill');
    databaseUrl = database.url;
    dropDatabase = () => database.drop();
    sqlClient = new Client({ connectionString: databaseUrl });
    await sqlClient.connect();
    Object.assign(engine, { port: await freePort() });
    Object.assign(dispatcher, { port: await freePort() });

    // Resend, as far as the dispatcher can tell: POST /emails answered 200 with an id, a little later.
    vendorServer = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      request.on('end', () => {
        const body = JSON.parse(text) as { to: string[] };
        const idempotencyKey = String(request.headers['idempotency-key']);
        vendorCalls.push({ at: Date.now(), idempotencyKey, to: body.to[0] });
        setTimeout(
          () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: idempotencyKey })),
          VENDOR_MIN_MS + Math.floor(Math.random() * (VENDOR_MAX_MS - VENDOR_MIN_MS)),
        );
      });
    });
    await new Promise<void>((resolve) => vendorServer?.listen(0, '127.0.0.1', resolve));
    const vendorUrl = `http://127.0.0.1:${(vendorServer.address() as AddressInfo).port}`;

    bus = new NamespacedBus(new KafkaBus({ brokers: infra.kafkaBrokers as readonly string[], clientId: namespace }), namespace);
    await ensureHeraldTopics(bus, PARTITIONS);
    await announce('category', 'categories', ACCOUNT_CATEGORIES);
    await announce('template', template.slug, template);
    await announce('workflow', 'dk-flow', {
      slug: 'dk-flow',
      version_no: 1,
      is_enabled: true,
      hash: 'h',
      definition: {
        name: 'Dispatch kill flow',
        category: 'account',
        trigger_type: 'api',
        tree: {
          nodes: [
            { name: 'Inbox', node_type: 'send_inbox', template: template.slug },
            { name: 'Mail', node_type: 'send_email', template: template.slug },
          ],
        },
      },
    });
    const vendorId = randomUUID();
    await announce(
      'vendor',
      'email/resend',
      {
        id: vendorId,
        channel: 'email',
        vendor: 'resend',
        is_enabled: true,
        priority: 1,
        base_url: vendorUrl,
        settings: { from: 'noreply@acme.test' },
        credentials_sealed: new SecretBox(secretsKeyBytes).seal(JSON.stringify({ api_key: 're_test' }), `vendor:${vendorId}`).toString('base64'),
        version: 1,
      },
      'upserted',
    );

    // Every delivery command, from the start of its topic: when it was first published.
    commandReader = await bus.subscribe({
      groupId: uniqueName('dispatch-kill-commands'),
      topics: [deliveryTopic('inbox').name, deliveryTopic('email').name],
      handler: async (message) => {
        const envelope = parseEnvelope(message.value);
        if (!envelope.ok) return;
        const delivery = envelope.value.payload as DeliveryRequested;
        const earlier = commandPublishedAt.get(delivery.delivery_id);
        if (!earlier || earlier.at > message.timestamp) {
          commandPublishedAt.set(delivery.delivery_id, { at: message.timestamp, channel: delivery.channel, distinctId: delivery.recipient.distinct_id ?? '' });
        }
      },
    });

    const [engineTook, dispatcherTook] = await Promise.all([start(engine), start(dispatcher)]);
    log(`namespace ${namespace}, seed ${seed} (HERALD_KILL_SEED), engine ready in ${engineTook} ms, dispatcher in ${dispatcherTook} ms`);
    await expectEventually(
      async () => {
        expect(await sql(`SELECT count(*)::int AS n FROM engine.definitions WHERE workspace_id = $1`, [workspace])).toEqual([{ n: 3 }]);
        expect(await sql(`SELECT count(*)::int AS n FROM dispatch.vendors WHERE workspace_id = $1`, [workspace])).toEqual([{ n: 1 }]);
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
  }, 180_000);

  afterAll(async () => {
    await Promise.all([kill(engine), kill(dispatcher)]);
    await commandReader?.stop();
    await bus?.close();
    await sqlClient?.end().catch(() => undefined);
    await new Promise((resolve) => (vendorServer ? vendorServer.close(resolve) : resolve(undefined)));
    await dropDatabase?.();
  }, 60_000);

  it(`delivers every trigger exactly once, none later than 30 s after its dispatcher restarts, over ${KILLS} kills of each process`, async () => {
    const uptimes = (): number[] => Array.from({ length: KILLS }, () => UPTIME_MIN_MS + Math.floor(random() * (UPTIME_MAX_MS - UPTIME_MIN_MS)));
    const engineUptimes = uptimes();
    const dispatcherUptimes = uptimes();

    let killing = true;
    const publishing = (async () => {
      while (killing) {
        await publishTriggers(TRIGGERS_PER_TICK);
        await sleep(TICK_MS);
      }
    })();
    const began = Date.now();
    const [engineRestarts, dispatcherRestarts] = await Promise.all([killRepeatedly(engine, engineUptimes), killRepeatedly(dispatcher, dispatcherUptimes)]);
    killing = false;
    await publishing;
    const killsDoneAt = Date.now();
    log(`${KILLS} kills of each process in ${((killsDoneAt - began) / 1000).toFixed(1)} s, ${triggers.length} triggers accepted meanwhile`);
    log(`engine restart to ready: ${describeSpread(engineRestarts)}; dispatcher restart to ready: ${describeSpread(dispatcherRestarts)}`);

    // Every trigger reaches both sinks, and every claim is recorded (a call that failed, say on a
    // connection the vendor closed, is retried after a backoff although an earlier call got through).
    const ledgerStates = (): Promise<Array<{ channel: string; status: string; n: number }>> =>
      sql(`SELECT channel, status, count(*)::int AS n FROM dispatch.deliveries GROUP BY channel, status ORDER BY 1, 2`);
    const allSent = (): Array<{ channel: string; status: string; n: number }> => [
      { channel: 'email', status: 'sent', n: triggers.length },
      { channel: 'inbox', status: 'sent', n: triggers.length },
    ];
    const inboxCount = async (): Promise<number> => (await sql<{ n: number }>(`SELECT count(DISTINCT distinct_id)::int AS n FROM dispatch.inbox_messages`))[0].n;
    const mailedCount = (): number => new Set(vendorCalls.map((call) => call.to)).size;
    let lastReport = 0;
    await expectEventually(
      async () => {
        const inbox = await inboxCount();
        if (Date.now() - lastReport > 5_000) {
          lastReport = Date.now();
          log(`waiting for delivery: inbox ${inbox}/${triggers.length}, e-mail ${mailedCount()}/${triggers.length}`);
        }
        expect([inbox, mailedCount()]).toEqual([triggers.length, triggers.length]);
        expect(await ledgerStates()).toEqual(allSent());
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    const settledAt = Date.now();
    // Both stopped, nothing more can be delivered: the sinks hold the final counts.
    await Promise.all([kill(engine, 'SIGTERM'), kill(dispatcher, 'SIGTERM')]);

    // Exactly once: one inbox message per trigger, one Idempotency-Key per trigger at the vendor.
    const inboxRows = await sql<{ distinct_id: string; delivery_id: string; created_at: Date }>(`SELECT distinct_id, delivery_id, created_at FROM dispatch.inbox_messages`);
    const inboxByRecipient = new Map<string, number>();
    for (const row of inboxRows) inboxByRecipient.set(row.distinct_id, (inboxByRecipient.get(row.distinct_id) ?? 0) + 1);
    const keysByRecipient = new Map<string, Set<string>>();
    for (const call of vendorCalls) keysByRecipient.set(call.to, (keysByRecipient.get(call.to) ?? new Set()).add(call.idempotencyKey));
    const notOnce = triggers.flatMap((distinctId) => {
      const inbox = inboxByRecipient.get(distinctId) ?? 0;
      const mails = keysByRecipient.get(`${distinctId}@example.com`)?.size ?? 0;
      return inbox === 1 && mails === 1 ? [] : [`${distinctId}: ${inbox} inbox, ${mails} e-mail keys`];
    });
    expect(notOnce).toEqual([]);
    expect(inboxRows).toHaveLength(triggers.length);
    expect(keysByRecipient.size).toBe(triggers.length);
    // Nothing was reported lost ("outcome unknown") or failed: every claim ended sent.
    expect(await ledgerStates()).toEqual(allSent());

    // The wait of each delivery: from its command's publish, or from its dispatcher's last restart before it if later.
    await expectEventually(() => expect(commandPublishedAt.size).toBe(2 * triggers.length), { timeoutMs: 60_000, intervalMs: 200 });
    const deliveredAt = new Map<string, number>();
    for (const row of inboxRows) deliveredAt.set(row.delivery_id, row.created_at.getTime());
    const firstCallByRecipient = new Map<string, number>();
    for (const call of vendorCalls) firstCallByRecipient.set(call.to, Math.min(firstCallByRecipient.get(call.to) ?? Infinity, call.at));
    const lastReadyBefore = (at: number): number => Math.max(0, ...dispatcher.readyAt.filter((ready) => ready <= at));
    const waits: number[] = [];
    const afterRestart: number[] = [];
    const tooLate: string[] = [];
    for (const [deliveryId, command] of commandPublishedAt) {
      const at = command.channel === 'inbox' ? deliveredAt.get(deliveryId) : firstCallByRecipient.get(`${command.distinctId}@example.com`);
      if (at === undefined) throw new Error(`delivery ${deliveryId} (${command.channel}) has no delivery at the sink`);
      const ready = lastReadyBefore(at);
      const wait = at - Math.max(command.at, ready);
      waits.push(wait);
      if (ready > command.at) afterRestart.push(wait);
      if (wait > MAX_WAIT_AFTER_RESTART_MS) tooLate.push(`${deliveryId} (${command.channel}): published ${command.at}, dispatcher ready ${ready}, delivered ${at}`);
    }

    const logs = [...dispatcher.logs];
    const count = (message: string): number => logs.filter((line) => line.msg === message).length;
    const sweptClaims = logs.filter((line) => line.msg === 'resolving delivery claims whose lease ran out').reduce((sum, line) => sum + Number(line.count ?? 0), 0);
    const warnings = new Map<string, number>();
    for (const line of [...engine.logs, ...logs].filter((l) => l.level === 'warn' || l.level === 'error')) {
      const key = `${String(line.level)} ${String(line.service)}: ${String(line.msg)}`;
      warnings.set(key, (warnings.get(key) ?? 0) + 1);
    }
    const sortedWaits = [...waits].sort((a, b) => a - b);
    log(
      [
        `${triggers.length} triggers, ${2 * triggers.length} deliveries, each delivered once; settled ${((settledAt - killsDoneAt) / 1000).toFixed(1)} s after the last kill`,
        `claims left in flight by each dispatcher kill: ${claimsLeftByKills.join(', ')}`,
        `vendor calls ${vendorCalls.length} (${vendorCalls.length - triggers.length} repeats under an Idempotency-Key already used, deduped by the vendor)`,
        `retries scheduled: ${count('delivery retry scheduled')} (${[...new Set(logs.filter((line) => line.msg === 'delivery retry scheduled').map((line) => String(line.reason)))].join('; ') || 'none'})`,
        `claims of a dead run resumed on redelivery: ${count('delivery claim of a dead dispatcher resumed on redelivery')}, by the lease sweep: ${sweptClaims}, taken over from a live owner: ${count('delivery claim taken over by another dispatcher; this attempt records nothing')}`,
        `wait of every delivery (from publish, or from the dispatcher's restart): ${describeSpread(waits)}, p99 ${percentile(sortedWaits, 99)} ms`,
        `wait of the ${afterRestart.length} deliveries published before their dispatcher's last restart: ${afterRestart.length > 0 ? describeSpread(afterRestart) : 'none'}`,
        `warnings and errors: ${[...warnings].map(([message, n]) => `\n    ${n} × ${message}`).join('') || 'none'}`,
      ].join('\n  '),
    );
    expect([tooLate.length, tooLate.slice(0, 10)]).toEqual([0, []]);
    // The kills did leave claims behind: the resumption was exercised.
    expect(claimsLeftByKills.reduce((sum, n) => sum + n, 0)).toBeGreaterThan(0);
  }, 600_000);
});

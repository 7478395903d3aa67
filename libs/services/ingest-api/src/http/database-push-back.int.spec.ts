import { getDataSourceToken } from '@nestjs/typeorm';
import type { Pool, PoolClient } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { DeadLetterPayload, RetryLaterError, TOPICS, TriggerAccepted } from '@herald/contracts';
import { runModeTargets } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { Acceptance } from '../acceptance/acceptance';
import { INGRESS_GROUP_ID } from '../ingress/kafka-ingress.consumer';
import { INGRESS_SIGNATURE_HEADER, INGRESS_WORKSPACE_KEY_HEADER, signIngressMessage } from '../ingress/ingress-signature';
import { IngestTestApp, startIngestTestApp } from '../testing/ingest-test-app';

/** How long a checkout waits for a busy pool here (5 s in service): only how soon the refusal comes. */
const SHORT_CONNECT_WAIT_MS = 100;

/** ingest-api's connection pool, the one every request's database work goes through. */
function ingestPool(t: IngestTestApp): Pool {
  const dataSource = t.app.get<DataSource>(getDataSourceToken('ingest') as string);
  return (dataSource.driver as PostgresDriver).master as Pool;
}

/** Every connection of the pool, taken: what a saturated database looks like to the next request. */
async function takeEveryConnection(pool: Pool): Promise<PoolClient[]> {
  return Promise.all(Array.from({ length: pool.options.max ?? 10 }, () => pool.connect()));
}

/** Runs `work` while every connection of the pool is busy and a checkout waits only briefly. */
async function whileSaturated<T>(pool: Pool, work: () => Promise<T>): Promise<T> {
  const held = await takeEveryConnection(pool);
  const wait = pool.options.connectionTimeoutMillis;
  pool.options.connectionTimeoutMillis = SHORT_CONNECT_WAIT_MS;
  try {
    return await work();
  } finally {
    pool.options.connectionTimeoutMillis = wait;
    for (const client of held) client.release();
  }
}

/** Runs `work` while the database refuses connections: the pool's connections are closed and new ones go to a port nobody listens on. */
async function whileDatabaseGone<T>(pool: Pool, work: () => Promise<T>): Promise<T> {
  const held = await takeEveryConnection(pool);
  const url = pool.options.connectionString as string;
  const gone = new URL(url);
  gone.port = '1';
  pool.options.connectionString = gone.toString();
  for (const client of held) client.release(true);
  try {
    return await work();
  } finally {
    pool.options.connectionString = url;
  }
}

const THROTTLED = { code: 429, error_code: 'rate_limited', type: 'Throttled', message: expect.stringContaining('retry after 1 s'), detail: expect.any(String) };

describe.each(runModeTargets())('a saturated database pushes back, an unreachable one is a 503 ($name)', ({ database, bus }) => {
  let t: IngestTestApp;
  let pool: Pool;
  const triggersKeyed = (key: string): TriggerAccepted[] =>
    t.triggers.map((c) => c.envelope.payload as TriggerAccepted).filter((p) => p.idempotency_key === key);

  beforeAll(async () => {
    t = await startIngestTestApp(database, bus);
    await t.announceWorkflow(t.workspace, 'welcome');
    pool = ingestPool(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers a request that arrives while every connection is busy with 429 and Retry-After, and accepts none of it', async () => {
    const refused = await whileSaturated(pool, async () => {
      const response = await fetch(`${t.app.url}trigger/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.workspace.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workflow: 'welcome', recipients: ['a'], $idempotency_key: 'busy-1' }),
      });
      return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
    });
    expect(refused).toEqual({ status: 429, retryAfter: '1', body: THROTTLED });

    // Nothing was published and the key was not claimed: the retry is a first acceptance.
    const retried = await t.call('POST', 'trigger/', { workflow: 'welcome', recipients: ['a'], $idempotency_key: 'busy-1' });
    expect(retried.status).toBe(202);
    await t.drain();
    expect(triggersKeyed('busy-1').map((p) => p.message_id)).toEqual([(retried.body as { message_id: string }).message_id]);
  });

  it('refuses each record of a bulk call with 429 inside the 207, and a signed request with 429', async () => {
    // The workspace key's secret is then cached: the signed request below reaches its replay claim.
    expect((await t.signedCall('POST', 'trigger/', JSON.stringify({ workflow: 'welcome', recipients: ['d'] }))).status).toBe(202);
    const [bulk, signed] = await whileSaturated(pool, () =>
      Promise.all([
        t.call('POST', 'trigger/', [
          { workflow: 'welcome', recipients: ['b'], $idempotency_key: 'busy-bulk-1' },
          { workflow: 'welcome', recipients: ['c'], $idempotency_key: 'busy-bulk-2' },
        ]),
        t.signedCall('POST', 'trigger/', JSON.stringify({ workflow: 'welcome', recipients: ['d'], $idempotency_key: 'busy-signed' })),
      ]),
    );
    const record = { status: 'error', status_code: 429, error: { type: 'Throttled', message: expect.stringContaining('retry after 1 s') } };
    expect(bulk).toEqual({ status: 207, body: { status: 'success', records: [record, record] } });
    expect(signed).toEqual({ status: 429, body: THROTTLED });
    await t.drain();
    expect(['busy-bulk-1', 'busy-bulk-2', 'busy-signed'].flatMap(triggersKeyed)).toEqual([]);
  });

  it('retries a Kafka ingress message refused for saturation until it is accepted, and never dead-letters it', async () => {
    const acceptance = t.app.get(Acceptance);
    const refusals: unknown[] = [];
    const acceptTrigger = acceptance.acceptTrigger.bind(acceptance);
    const spy = jest.spyOn(acceptance, 'acceptTrigger').mockImplementation(async (...args) => {
      try {
        return await acceptTrigger(...args);
      } catch (error) {
        refusals.push(error);
        throw error;
      }
    });
    const publishSigned = (body: unknown): Promise<void> => {
      const value = JSON.stringify(body);
      const headers = { [INGRESS_WORKSPACE_KEY_HEADER]: t.workspace.workspaceKey, [INGRESS_SIGNATURE_HEADER]: signIngressMessage(value, t.workspace.workspaceSecret) };
      return t.bus.publish(TOPICS.ingressTrigger.name, [{ key: 'ingress', value, headers }]);
    };
    try {
      // The workspace key's secret is then cached: the message below reaches acceptance.
      await publishSigned({ workflow: 'welcome', recipients: ['g'], $idempotency_key: 'ingress-warm' });
      await expectEventually(() => expect(triggersKeyed('ingress-warm')).toHaveLength(1));
      await whileSaturated(pool, async () => {
        await publishSigned({ workflow: 'welcome', recipients: ['h'], $idempotency_key: 'ingress-busy' });
        await expectEventually(() => expect(refusals.some((error) => error instanceof RetryLaterError)).toBe(true));
      });
      await expectEventually(() => expect(triggersKeyed('ingress-busy')).toHaveLength(1));
      await t.drain();
      const fromIngress = (d: DeadLetterPayload): boolean => d.consumer_group === INGRESS_GROUP_ID || d.consumer_group.endsWith(`.${INGRESS_GROUP_ID}`);
      expect(t.deadLetters.filter(fromIngress)).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  });

  it('answers 503, not 429, while the database refuses connections', async () => {
    const [single, bulk] = await whileDatabaseGone(pool, () =>
      Promise.all([
        t.call('POST', 'trigger/', { workflow: 'welcome', recipients: ['e'], $idempotency_key: 'gone-1' }),
        t.call('POST', 'trigger/', [{ workflow: 'welcome', recipients: ['f'], $idempotency_key: 'gone-2' }]),
      ]),
    );
    expect(single).toEqual({ status: 503, body: expect.objectContaining({ code: 503, error_code: 'unavailable', type: 'ServiceUnavailable' }) });
    expect(bulk).toMatchObject({ status: 207, body: { records: [{ status: 'error', status_code: 503, error: { type: 'ServiceUnavailable' } }] } });
    await t.drain();
    expect(['gone-1', 'gone-2'].flatMap(triggersKeyed)).toEqual([]);
  });
});

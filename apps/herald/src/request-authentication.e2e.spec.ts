import { randomBytes } from 'node:crypto';
import { deterministicUuid } from '@herald/contracts';
import { sdkSignedRequest } from '@herald/runtime';
import { expectEventually, fetchJson, heraldEnv } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { heraldModes } from './testing/herald-modes';

/**
 * How long a credential deleted or rotated through the management API may keep working
 * at a service: the outbox relay, the bus, the service's credentials read model, and the
 * 5 s cache of the replicas that did not apply the change themselves. Documented in
 * docs/architecture.md (Authentication).
 */
const REVOCATION_BOUND_MS = 15_000;
/** A new credential reaches every service the same way; the first start of a mode is slower. */
const PROPAGATION_MS = 30_000;

type Answer = { status: number; body: unknown };

/** A request to one service that any authenticated caller gets `expected` for, with no lasting effect. */
interface Probe {
  readonly service: string;
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly expected: number;
}

/** One per service that authenticates `{base_url}` requests (WorkspaceAuthModule, and the inbox's own guard). */
const INGEST: Probe & { readonly body: unknown } = { service: 'ingest-api', method: 'POST', path: 'trigger/', body: { workflow: 'no-such-workflow', recipients: ['auth-probe'] }, expected: 404 };
const PREFERENCES: Probe = { service: 'preference-service', method: 'GET', path: 'v1/user/auth-probe/', expected: 404 };
const ENGINE: Probe = { service: 'workflow-engine', method: 'GET', path: 'v1/message/?limit=1', expected: 200 };
const INBOX: Probe = { service: 'channel-dispatchers (inbox)', method: 'GET', path: 'v1/user/auth-probe/inbox/', expected: 200 };
/** The services that verify SDK signatures; the inbox takes API keys only. */
const SIGNATURE_PROBES: readonly Probe[] = [INGEST, PREFERENCES, ENGINE];
const API_KEY_PROBES: readonly Probe[] = [INGEST, PREFERENCES, ENGINE, INBOX];

/** A write with a body per signature-verifying service, and what it answers when the signature holds. */
const BODY_WRITES: readonly (Probe & { readonly body: unknown })[] = [
  INGEST,
  { service: 'preference-service', method: 'POST', path: 'v1/user/auth-body-probe/', body: { name: 'probe' }, expected: 201 },
  { service: 'workflow-engine', method: 'POST', path: 'v1/workflow_run/cancel/', body: { recipients: ['nobody'] }, expected: 200 },
];

/**
 * `{base_url}` authentication through the whole of Herald, in both modes: an exact
 * replay of a signed trigger starts no second run; the signature covers the body both
 * ways (an empty body signed and a body sent, and the reverse); and a workspace key
 * deleted or rotated, or an API key deleted, through the management API is refused by
 * every service within REVOCATION_BOUND_MS (outbox → notify.credentials.changed.v1 →
 * each service's read model → its cache).
 */
describe.each(heraldModes('auth'))('request authentication across the services ($name)', (mode) => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  const workspaceKey = `hwk_${randomBytes(16).toString('hex')}`;
  const workspaceSecret = `hws_${randomBytes(24).toString('base64url')}`;
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;

  const management = (method: string, path: string, body?: unknown): Promise<Answer> =>
    fetchJson(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const withBearer = (probe: Probe, key: string): Promise<Answer> =>
    fetchJson(`${herald.baseUrl}${probe.path}`, {
      method: probe.method,
      headers: { authorization: `Bearer ${key}`, ...(probe.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: probe.body === undefined ? undefined : JSON.stringify(probe.body),
    });
  const signed = (probe: Probe, credentials: { workspaceKey: string; secret: string }, options: { signedBody?: string; sentBody?: string; signedContentMd5?: string } = {}): Promise<Answer> => {
    const body = probe.body === undefined ? undefined : JSON.stringify(probe.body);
    const sent = 'sentBody' in options ? options.sentBody : body;
    const signedBody = 'signedBody' in options ? options.signedBody : sent;
    const url = `${herald.baseUrl}${probe.path}`;
    return fetchJson(url, sdkSignedRequest(url, probe.method, credentials, { body: sent, signedBody, signedContentMd5: options.signedContentMd5 }));
  };
  const bootstrapSigner = (): { workspaceKey: string; secret: string } => ({ workspaceKey, secret: workspaceSecret });

  beforeAll(async () => {
    const prepared = await mode.prepare();
    dispose = prepared.dispose;
    herald = await startEmbeddedHerald(
      heraldEnv({
        ...prepared.env,
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_API_KEY: apiKey,
        HERALD_BOOTSTRAP_WORKSPACE_KEY: workspaceKey,
        HERALD_BOOTSTRAP_WORKSPACE_SECRET: workspaceSecret,
        HERALD_LOG_LEVEL: 'error',
      }),
    );
    const ok = (response: Answer): void => expect({ success: response.status >= 200 && response.status < 300, body: response.body }).toMatchObject({ success: true });
    ok(
      await management('POST', 'v1/staging/preference_category/', {
        root_categories: [{ root_category: 'transactional', sections: [{ name: 'Account', categories: [{ category: 'account', name: 'Account', default_preference: 'opt_in' }] }] }],
      }),
    );
    ok(await management('PATCH', 'v1/staging/preference_category/commit/?commit_message=c'));
    ok(await management('POST', 'v2/staging/template/replayed/', { name: 'Replayed', enabled_channels: ['inbox'] }));
    ok(await management('POST', 'v2/staging/template/replayed/channel/inbox/variant/default/', { locale: 'en', content: { body: 'Replayed {{n}}' } }));
    ok(await management('PATCH', 'v2/staging/template/replayed/commit/?commit_message=t'));
    ok(
      await management('POST', 'v1/staging/workflow/replayed/', {
        name: 'Replayed',
        category: 'account',
        trigger_type: 'api',
        tree: { nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'replayed' }] },
      }),
    );
    ok(await management('PATCH', 'v1/staging/workflow/replayed/commit/?commit_message=w'));
    // The bootstrap credentials reach every service through the bus.
    for (const probe of API_KEY_PROBES) await expectEventually(async () => expect((await withBearer(probe, apiKey)).status).toBe(probe.expected), { timeoutMs: PROPAGATION_MS });
    for (const probe of SIGNATURE_PROBES) await expectEventually(async () => expect((await signed(probe, bootstrapSigner())).status).toBe(probe.expected), { timeoutMs: PROPAGATION_MS });
  });

  afterAll(async () => {
    await herald?.stop();
    await dispose?.();
  });

  describe('an exact replay of a signed trigger', () => {
    const inboxOf = async (distinctId: string): Promise<string[]> => {
      const inbox = await withBearer({ ...INBOX, path: `v1/user/${distinctId}/inbox/` }, apiKey);
      expect(inbox.status).toBe(200);
      return (inbox.body as { results: unknown[] }).results.map((item) => JSON.stringify(item));
    };

    it('is answered with the first message_id and starts no second run', async () => {
      const url = `${herald.baseUrl}trigger/`;
      const trigger = (n: number): RequestInit =>
        sdkSignedRequest(url, 'POST', bootstrapSigner(), { body: JSON.stringify({ workflow: 'replayed', recipients: ['replay-e2e'], data: { n } }) });
      const captured = trigger(1);
      let first: Answer = { status: 0, body: undefined };
      // Ingest learns the workflow through the bus; a 404 is not recorded, so the same request can be sent until it is known.
      await expectEventually(async () => {
        first = await fetchJson(url, captured);
        expect(first.status).toBe(202);
      }, { timeoutMs: PROPAGATION_MS });
      expect(await fetchJson(url, captured)).toEqual(first);
      expect(await fetchJson(url, captured)).toEqual(first);

      // A marker on the same recipient (so the same partition, after the replays): once its message is in the inbox, a run the replays started would have delivered too.
      const marker = await fetchJson(url, trigger(2));
      expect(marker.status).toBe(202);
      await expectEventually(async () => expect((await inboxOf('replay-e2e')).some((item) => item.includes('Replayed 2'))).toBe(true), { timeoutMs: 60_000 });
      const inbox = await inboxOf('replay-e2e');
      expect(inbox.filter((item) => item.includes('Replayed 1'))).toHaveLength(1);
      expect(inbox).toHaveLength(2);
      // The one run of the first request is there, under the id derived from its message_id.
      const runId = deterministicUuid((first.body as { message_id: string }).message_id, '0');
      expect((await withBearer({ ...ENGINE, path: `v1/workflow_run/${runId}/` }, apiKey)).status).toBe(200);
    });
  });

  describe('the signature covers the body, both ways', () => {
    it.each(BODY_WRITES)('$service: a correctly signed write is accepted (the control)', async (write) => {
      expect((await signed(write, bootstrapSigner())).status).toBe(write.expected);
    });

    it.each(BODY_WRITES)('$service: an empty body signed, then a body sent, is refused with 401', async (write) => {
      expect(await signed(write, bootstrapSigner(), { signedBody: undefined })).toMatchObject({ status: 401, body: { error_code: 'authentication_failed' } });
      // The md5 of zero bytes, which the verifier also takes for an empty body, must not stand for a body either.
      expect(await signed(write, bootstrapSigner(), { signedContentMd5: 'd41d8cd98f00b204e9800998ecf8427e' })).toMatchObject({ status: 401 });
    });

    it.each(BODY_WRITES)('$service: a body signed, then sent empty, is refused with 401', async (write) => {
      expect(await signed(write, bootstrapSigner(), { sentBody: undefined, signedBody: JSON.stringify(write.body) })).toMatchObject({
        status: 401,
        body: { error_code: 'authentication_failed' },
      });
    });
  });

  describe('revocation through the management API', () => {
    const createApiKey = async (): Promise<{ id: string; key: string }> => {
      const created = await management('POST', 'v1/staging/ws_api_key/', { name: `revocation ${randomBytes(4).toString('hex')}` });
      expect(created.status).toBe(201);
      const body = created.body as { id: string; api_key: string };
      return { id: body.id, key: body.api_key };
    };
    const createWorkspaceKey = async (): Promise<{ id: string; workspaceKey: string; secret: string }> => {
      const created = await management('POST', 'v1/staging/ws_key/', { name: `revocation ${randomBytes(4).toString('hex')}` });
      expect(created.status).toBe(201);
      const body = created.body as { id: string; key: string; secret: string };
      return { id: body.id, workspaceKey: body.key, secret: body.secret };
    };
    const refusedWithin = (answer: () => Promise<Answer>): Promise<void> =>
      expectEventually(async () => expect(await answer()).toMatchObject({ status: 401, body: { error_code: 'authentication_failed' } }), { timeoutMs: REVOCATION_BOUND_MS });

    it.each(API_KEY_PROBES)('$service refuses an API key once it is deleted', async (probe) => {
      const apiKeyToDelete = await createApiKey();
      await expectEventually(async () => expect((await withBearer(probe, apiKeyToDelete.key)).status).toBe(probe.expected), { timeoutMs: PROPAGATION_MS });
      expect((await management('DELETE', `v1/staging/ws_api_key/${apiKeyToDelete.id}/`)).status).toBe(204);
      await refusedWithin(() => withBearer(probe, apiKeyToDelete.key));
      // The bootstrap key is untouched.
      expect((await withBearer(probe, apiKey)).status).toBe(probe.expected);
    });

    it.each(SIGNATURE_PROBES)('$service refuses signatures of a workspace key once it is deleted', async (probe) => {
      const toDelete = await createWorkspaceKey();
      await expectEventually(async () => expect((await signed(probe, toDelete)).status).toBe(probe.expected), { timeoutMs: PROPAGATION_MS });
      expect((await management('DELETE', `v1/staging/ws_key/${toDelete.id}/`)).status).toBe(204);
      await refusedWithin(() => signed(probe, toDelete));
      expect((await signed(probe, bootstrapSigner())).status).toBe(probe.expected);
    });

    it.each(SIGNATURE_PROBES)('$service refuses the old secret of a rotated workspace key and takes the new one', async (probe) => {
      const toRotate = await createWorkspaceKey();
      await expectEventually(async () => expect((await signed(probe, toRotate)).status).toBe(probe.expected), { timeoutMs: PROPAGATION_MS });
      const rotated = await management('PATCH', `v1/staging/ws_key/${toRotate.id}/rotate/`);
      expect(rotated.status).toBe(200);
      const newSecret = (rotated.body as { secret: string }).secret;
      expect(newSecret).not.toBe(toRotate.secret);
      await refusedWithin(() => signed(probe, toRotate));
      expect((await signed(probe, { workspaceKey: toRotate.workspaceKey, secret: newSecret })).status).toBe(probe.expected);
    });

    it('the inbox takes API keys only: a valid SDK signature is refused there', async () => {
      expect(await signed(INBOX, bootstrapSigner())).toMatchObject({ status: 401 });
    });
  });
});

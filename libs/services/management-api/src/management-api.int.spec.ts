import { randomUUID } from 'node:crypto';
import { CredentialsChanged } from '@herald/contracts';
import { hashToken } from '@herald/runtime';
import { databaseTargets, expectEventually, fetchJson } from '@herald/testing';
import { INVALID_SERVICE_TOKEN, ManagementTestApp, startManagementTestApp } from './testing/management-test-app';

describe.each(databaseTargets())('management API: workspaces and keys ($kind)', (target) => {
  let t: ManagementTestApp;
  let token: string;
  let otherToken: string;
  let app: ManagementTestApp['app'];
  let call: ManagementTestApp['call'];
  let sql: ManagementTestApp['sql'];
  let published: CredentialsChanged[];

  beforeAll(async () => {
    t = await startManagementTestApp(target);
    ({ token, otherToken, app, call, sql, credentials: published } = t);
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('authentication', () => {
    it.each([
      ['GET', 'v1/workspace/'],
      ['POST', 'v1/workspace/'],
      ['GET', 'v1/staging/ws_key/'],
      ['POST', 'v1/staging/ws_key/'],
      ['GET', 'v1/staging/ws_api_key/'],
    ])('refuses %s /%s with a wrong token (401 authentication_failed)', async (method, path) => {
      const response = await call(method, path, method === 'POST' ? { name: 'x' } : undefined, 'wrong');
      expect(response).toEqual(INVALID_SERVICE_TOKEN);
    });

    it('refuses a request without the ServiceToken scheme', async () => {
      const response = await fetchJson(`${app.url}v1/workspace/`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(401);
    });
  });

  // Each case sets up what it needs and asserts relative to it: any one of them runs alone, in any order.
  const workspaceList = async (): Promise<{ meta: { count: number }; results: Array<{ slug: string; name: string }> }> =>
    (await call('GET', 'v1/workspace/?limit=1000')).body as { meta: { count: number }; results: Array<{ slug: string; name: string }> };
  const unique = (): string => randomUUID().slice(0, 8);

  describe('workspaces', () => {
    it('lists the bootstrapped workspace', async () => {
      const response = await call('GET', 'v1/workspace/');
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ meta: { limit: 20, offset: 0 } });
      expect((response.body as { results: unknown[] }).results).toContainEqual({
        uid: expect.any(String),
        slug: 'staging',
        data_center: {},
        is_expired: false,
        has_limit_reached: false,
        name: 'staging',
        description: '',
        mode: 'sandbox',
      });
    });

    it('creates a workspace with a slug from its name, and answers with the updated list', async () => {
      const before = (await workspaceList()).meta.count;
      const suffix = unique();
      const response = await call('POST', 'v1/workspace/', { name: `Production EU ${suffix}`, description: 'live', mode: 'production' });
      expect(response.status).toBe(200);
      const body = response.body as { meta: { count: number }; results: unknown[] };
      expect(body.meta.count).toBe(before + 1);
      expect(body.results).toContainEqual(
        expect.objectContaining({ slug: `production-eu-${suffix}`, name: `Production EU ${suffix}`, description: 'live', mode: 'production' }),
      );
    });

    it('refuses a second workspace with the same slug (409)', async () => {
      const response = await call('POST', 'v1/workspace/', { name: 'x', slug: 'staging' });
      expect(response).toEqual({
        status: 409,
        body: {
          code: 409,
          error_code: 'conflict',
          type: 'ConflictError',
          message: "workspace 'staging' already exists",
          detail: "workspace 'staging' already exists",
        },
      });
    });

    it('reports every invalid field of a create by its path, and creates nothing', async () => {
      const before = await workspaceList();
      const response = await call('POST', 'v1/workspace/', { mode: 'chaos', slug: 'Bad Slug', description: 7 });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 400, error_code: 'validation_error', type: 'ValidationError' });
      const detail = (response.body as { detail: string }).detail;
      for (const path of ['name', 'slug', 'description', 'mode']) expect(detail).toContain(`${path}:`);
      expect(await workspaceList()).toEqual(before);
    });

    it('pages with limit and offset, and refuses limits out of range', async () => {
      const suffix = unique();
      for (const n of [1, 2]) expect((await call('POST', 'v1/workspace/', { name: `Paged ${suffix} ${n}` })).status).toBe(200);
      const { count } = (await workspaceList()).meta;
      // Oldest first: the two just created are the last two.
      expect((await call('GET', `v1/workspace/?limit=1&offset=${count - 2}`)).body).toMatchObject({
        meta: { count, limit: 1, offset: count - 2 },
        results: [{ slug: `paged-${suffix}-1` }],
      });
      expect((await call('GET', `v1/workspace/?limit=2&offset=${count - 1}`)).body).toMatchObject({ results: [{ slug: `paged-${suffix}-2` }] });
      const tooMany = await call('GET', 'v1/workspace/?limit=1001');
      expect(tooMany.status).toBe(400);
      expect((tooMany.body as { detail: string }).detail).toContain('limit: must be an integer from 1 to 1000');
    });

    it("shows another account only its own workspaces", async () => {
      expect((await call('POST', 'v1/workspace/', { name: `Mine ${unique()}` })).status).toBe(200);
      expect((await call('GET', 'v1/workspace/', undefined, otherToken)).body).toMatchObject({
        meta: { count: 1 },
        results: [{ slug: 'staging', name: 'other staging' }],
      });
    });
  });

  describe('workspace keys', () => {
    interface CreatedKey {
      readonly id: string;
      readonly key: string;
      readonly secret: string;
    }
    const createKey = async (name = `backend-${unique()}`): Promise<CreatedKey> => {
      const response = await call('POST', 'v1/staging/ws_key/', { name, allowed_domains: ['example.com'] });
      expect(response.status).toBe(201);
      return response.body as CreatedKey;
    };
    const keyList = async (): Promise<{ meta: { count: number }; results: Array<{ id: string; secret: string; is_default: boolean }> }> =>
      (await call('GET', 'v1/staging/ws_key/?limit=1000')).body as { meta: { count: number }; results: Array<{ id: string; secret: string; is_default: boolean }> };

    it('lists the bootstrap key with its secret in full', async () => {
      const response = await call('GET', 'v1/staging/ws_key/');
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ meta: { limit: 20, offset: 0 } });
      expect((response.body as { results: Array<{ is_default: boolean }> }).results.filter((k) => k.is_default)).toEqual([
        expect.objectContaining({ name: 'default', is_default: true, is_active: true, is_deleted: false, key: expect.stringMatching(/^hwk_/), secret: expect.stringMatching(/^hws_/) }),
      ]);
    });

    it('creates a key pair (201), stores the secret sealed and announces it sealed', async () => {
      const response = await call('POST', 'v1/staging/ws_key/', { name: 'backend', allowed_domains: ['example.com'] });
      expect(response.status).toBe(201);
      const created = response.body as CreatedKey;
      expect(response.body).toMatchObject({
        id: expect.any(String),
        name: 'backend',
        key: expect.stringMatching(/^hwk_/),
        secret: expect.stringMatching(/^hws_/),
        allowed_domains: ['example.com'],
        is_default: false,
        is_deleted: false,
        rotated_at: null,
      });
      const [stored] = await sql<{ secret_sealed: Buffer }>(`SELECT secret_sealed FROM management.workspace_keys WHERE id = $1`, [created.id]);
      expect(stored.secret_sealed.includes(Buffer.from(created.secret))).toBe(false);

      const announced = await expectEventually(() => {
        const event = published.find((p) => p.kind === 'workspace_key' && p.workspace_key_id === created.id);
        expect(event).toBeDefined();
        return event as Extract<CredentialsChanged, { kind: 'workspace_key' }>;
      });
      expect(announced).toMatchObject({ change: 'created', key: created.key, workspace_slug: 'staging' });
      expect(JSON.stringify(announced)).not.toContain(created.secret);
    });

    it('rotates the secret of a key, keeping the key', async () => {
      const created = await createKey();
      const response = await call('PATCH', `v1/staging/ws_key/${created.id}/rotate/`);
      expect(response.status).toBe(200);
      const rotated = response.body as { key: string; secret: string; rotated_at: string | null };
      expect(rotated.key).toBe(created.key);
      expect(rotated.secret).not.toBe(created.secret);
      expect(rotated.rotated_at).not.toBeNull();
      expect((await keyList()).results.find((k) => k.id === created.id)?.secret).toBe(rotated.secret);
    });

    it("does not let another account touch this workspace's keys", async () => {
      const created = await createKey();
      expect((await call('GET', 'v1/staging/ws_key/', undefined, otherToken)).body).toMatchObject({ meta: { count: 0 }, results: [] });
      expect((await call('DELETE', `v1/staging/ws_key/${created.id}/`, undefined, otherToken)).status).toBe(404);
      expect((await call('PATCH', `v1/staging/ws_key/${created.id}/rotate/`, undefined, otherToken)).status).toBe(404);
      expect((await keyList()).results.find((k) => k.id === created.id)?.secret).toBe(created.secret);
    });

    it('deletes a key (204), after which it is gone', async () => {
      const created = await createKey();
      const before = (await keyList()).meta.count;
      expect((await call('DELETE', `v1/staging/ws_key/${created.id}/`)).status).toBe(204);
      const after = await keyList();
      expect(after.meta.count).toBe(before - 1);
      expect(after.results.map((k) => k.id)).not.toContain(created.id);
      expect((await call('DELETE', `v1/staging/ws_key/${created.id}/`)).status).toBe(404);
      await expectEventually(() =>
        expect(published).toContainEqual(expect.objectContaining({ kind: 'workspace_key', workspace_key_id: created.id, change: 'deleted' })),
      );
    });

    it('answers 404 not_found for an unknown workspace or key', async () => {
      expect(await call('GET', 'v1/nowhere/ws_key/')).toEqual({
        status: 404,
        body: {
          code: 404,
          error_code: 'not_found',
          type: 'NotFound',
          message: "workspace 'nowhere' not found",
          detail: "workspace 'nowhere' not found",
        },
      });
      expect((await call('PATCH', 'v1/staging/ws_key/not-a-uuid/rotate/')).status).toBe(404);
      expect((await call('DELETE', `v1/staging/ws_key/${randomUUID()}/`)).status).toBe(404);
    });

    it('reports an invalid key body by field path', async () => {
      const response = await call('POST', 'v1/staging/ws_key/', { allowed_domains: ['ok.com', 7] });
      expect(response.status).toBe(400);
      expect((response.body as { detail: string }).detail).toMatch(/name: .*allowed_domains/);
    });
  });

  describe('API keys', () => {
    it('shows a created key once, then only masked, and stores only its hash', async () => {
      const count = async (): Promise<number> => ((await call('GET', 'v1/staging/ws_api_key/')).body as { meta: { count: number } }).meta.count;
      const before = await count();
      const created = await call('POST', 'v1/staging/ws_api_key/', { name: 'backend-prod' });
      expect(created.status).toBe(201);
      const { id, api_key: apiKey, masked_api_key: masked } = created.body as { id: string; api_key: string; masked_api_key: string };
      expect(apiKey).toMatch(/^hak_/);
      expect(apiKey.startsWith(masked.replace(/\*+$/, ''))).toBe(true);
      expect(masked).not.toContain(apiKey.slice(8));

      const list = (await call('GET', 'v1/staging/ws_api_key/?limit=1000')).body as { meta: { count: number }; results: Array<Record<string, unknown>> };
      expect(list.meta.count).toBe(before + 1);
      expect(list.results.find((k) => k.id === id)).toEqual({
        id,
        masked_api_key: masked,
        is_deleted: false,
        name: 'backend-prod',
        allowed_domains: [],
        created_at: expect.any(String),
        created_by: null,
        deleted_at: null,
        deleted_by: null,
        expires_at: null,
        read_only: false,
      });
      expect(JSON.stringify(list)).not.toContain(apiKey);

      const stored = await sql<{ key_hash: Buffer }>(`SELECT key_hash FROM management.api_keys WHERE id = $1`, [id]);
      expect(stored[0].key_hash.equals(hashToken(apiKey))).toBe(true);
      await expectEventually(() =>
        expect(published).toContainEqual(
          expect.objectContaining({ kind: 'api_key', api_key_id: id, change: 'created', key_hash: hashToken(apiKey).toString('hex') }),
        ),
      );

      expect((await call('DELETE', `v1/staging/ws_api_key/${id}/`)).status).toBe(204);
      expect(await count()).toBe(before);
      expect((await call('DELETE', `v1/staging/ws_api_key/${id}/`)).status).toBe(404);
    });

    it('refuses an expiry that is not a future ISO 8601 time, naming expires_at, and creates nothing', async () => {
      const listed = async (): Promise<number> => ((await call('GET', 'v1/staging/ws_api_key/')).body as { meta: { count: number } }).meta.count;
      const before = await listed();
      for (const expiresAt of [new Date(Date.now() - 1_000).toISOString(), 'tomorrow', 42, '2030-W05', '2030-100']) {
        const refused = await call('POST', 'v1/staging/ws_api_key/', { name: 'short-lived', expires_at: expiresAt });
        expect(refused.status).toBe(400);
        expect(JSON.stringify(refused.body)).toContain('expires_at');
      }
      expect(await listed()).toBe(before);
    });

    it('deletes a key when its expires_at passes and announces the deletion, leaving keys without one alone', async () => {
      const expiresAt = new Date(Date.now() + 1_500).toISOString();
      const created = await call('POST', 'v1/staging/ws_api_key/', { name: 'console session', expires_at: expiresAt });
      const lasting = await call('POST', 'v1/staging/ws_api_key/', { name: 'backend' });
      expect([created.status, lasting.status]).toEqual([201, 201]);
      const { id, expires_at: shown } = created.body as { id: string; expires_at: string };
      const lastingId = (lasting.body as { id: string }).id;
      expect(new Date(shown).toISOString()).toBe(expiresAt);
      expect(lasting.body).toMatchObject({ expires_at: null });

      await expectEventually(() => expect(published).toContainEqual(expect.objectContaining({ kind: 'api_key', api_key_id: id, change: 'deleted' })), {
        timeoutMs: 30_000,
      });
      const [row] = await sql<{ deleted_at: Date | null }>(`SELECT deleted_at FROM management.api_keys WHERE id = $1`, [id]);
      expect(row.deleted_at!.getTime()).toBeGreaterThanOrEqual(new Date(expiresAt).getTime());
      const live = ((await call('GET', 'v1/staging/ws_api_key/?limit=1000')).body as { results: Array<{ id: string }> }).results.map((key) => key.id);
      expect(live).toContain(lastingId);
      expect(live).not.toContain(id);
      expect(published).not.toContainEqual(expect.objectContaining({ api_key_id: lastingId, change: 'deleted' }));
      expect((await call('DELETE', `v1/staging/ws_api_key/${lastingId}/`)).status).toBe(204);
    });
  });
});

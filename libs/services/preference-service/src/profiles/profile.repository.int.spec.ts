import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { AudienceChanged, AudienceSubject, HeraldError, PROFILE_LIMITS } from '@herald/contracts';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { databaseTargets } from '@herald/testing';
import { ListRepository } from '../lists/list.repository';
import { AUDIENCE_OUTBOX } from '../outbox/audience-events';
import { PreferenceRepository } from '../preferences/preference.repository';
import { SubscriptionRepository } from '../subscriptions/subscription.repository';
import { openAudienceDatabase } from '../testing/repository-database';
import { ProfileDocument, applyUpsert } from './profile-document';
import { ProfileRepository } from './profile.repository';

const user = (distinct_id: string): AudienceSubject => ({ type: 'user', distinct_id });
const object = (object_type: string, id: string): AudienceSubject => ({ type: 'object', object_type, id });
const set = (properties: Record<string, unknown>) => (current: ProfileDocument) => applyUpsert(current, properties);
const document = (properties: Record<string, unknown>, channels: Record<string, unknown[]> = {}): ProfileDocument => ({ properties, channels });

describe.each(databaseTargets())('the profile repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let profiles: ProfileRepository;
  const now = new Date('2026-03-01T10:00:00Z');

  beforeAll(async () => {
    const opened = await openAudienceDatabase(target);
    db = opened.db;
    dispose = opened.close;
    profiles = new ProfileRepository(db, { now: () => now });
  });
  afterAll(async () => {
    await dispose?.();
  });

  const newWorkspace = (): AuthenticatedWorkspace => {
    const id = randomUUID();
    return { id, slug: `ws-${id.slice(0, 8)}` };
  };
  const save = (ws: AuthenticatedWorkspace, subject: AudienceSubject, doc: ProfileDocument, tenantId?: string) =>
    profiles.mutate(ws, subject, tenantId, () => ({ ok: true, value: doc }), { create: true });

  /** The workspace's announcements, in order. */
  async function announced(ws: AuthenticatedWorkspace): Promise<AudienceChanged[]> {
    const rows: Array<{ value: string }> = await db.query(`SELECT value FROM ${AUDIENCE_OUTBOX} ORDER BY id`);
    return rows
      .map((row) => JSON.parse(row.value) as { workspace_id: string; payload: AudienceChanged })
      .filter((envelope) => envelope.workspace_id === ws.id)
      .map((envelope) => envelope.payload);
  }

  /** How many rows of `table` the subject has in the workspace. */
  async function rowsOf(ws: AuthenticatedWorkspace, table: string, subjectId: string): Promise<number> {
    const [row]: Array<{ n: number }> = await db.query(`SELECT count(*)::int AS n FROM audience.${table} WHERE workspace_id = $1 AND subject_id = $2`, [ws.id, subjectId]);
    return row.n;
  }

  describe('mutate', () => {
    it('creates a profile when asked, changes it, answers the row with the written document and announces each change', async () => {
      const ws = newWorkspace();
      const created = await profiles.mutate(ws, user('ana'), undefined, set({ name: 'Ana', $email: 'ana@example.com' }), { create: true, sourceMessageIds: ['m-1'] });
      expect(created).toMatchObject({ properties: { name: 'Ana' }, channels: { email: ['ana@example.com'] } });
      expect(created.created_at).toBeInstanceOf(Date);
      const changed = await profiles.mutate(ws, user('ana'), undefined, set({ plan: 'pro' }), { create: false });
      expect(changed).toMatchObject({ properties: { name: 'Ana', plan: 'pro' }, channels: { email: ['ana@example.com'] }, created_at: created.created_at });
      expect(changed.updated_at.getTime()).toBeGreaterThanOrEqual(created.updated_at.getTime());
      expect(await profiles.read(ws, user('ana'))).toMatchObject({ properties: changed.properties, channels: changed.channels });

      expect(await announced(ws)).toEqual([
        { kind: 'profile', change: 'upserted', workspace_slug: ws.slug, subject: user('ana'), profile: { properties: { name: 'Ana' }, channels: { email: ['ana@example.com'] } }, source_message_ids: ['m-1'] },
        { kind: 'profile', change: 'upserted', workspace_slug: ws.slug, subject: user('ana'), profile: { properties: { name: 'Ana', plan: 'pro' }, channels: { email: ['ana@example.com'] } } },
      ]);
    });

    it('answers 404 without `create` for a profile that does not exist, writing nothing', async () => {
      const ws = newWorkspace();
      await expect(profiles.mutate(ws, object('teams', 'devs'), undefined, set({ a: 1 }), { create: false })).rejects.toThrow("object 'teams/devs' not found");
      expect(await profiles.exists(ws, object('teams', 'devs'))).toBe(false);
      expect(await announced(ws)).toEqual([]);
    });

    it('refuses a change its function refuses, and one past the limits, leaving the profile as it was', async () => {
      const ws = newWorkspace();
      await save(ws, user('bo'), document({ kept: true }));
      const refused = await profiles
        .mutate(ws, user('bo'), undefined, () => ({ ok: false, errors: [{ path: 'name', message: 'must be a string' }] }), { create: false })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(HeraldError);
      expect(refused).toMatchObject({ code: 'validation_error', fieldErrors: [{ path: 'name', message: 'must be a string' }] });

      const many = Object.fromEntries(Array.from({ length: PROFILE_LIMITS.maxProperties + 1 }, (_, i) => [`p${i}`, i]));
      const tooMany = await profiles.mutate(ws, user('bo'), undefined, () => ({ ok: true, value: document(many) }), { create: false }).catch((error: unknown) => error);
      expect(tooMany).toMatchObject({ code: 'payload_too_large' });
      const tooLarge = await profiles
        .mutate(ws, user('bo'), undefined, () => ({ ok: true, value: document({ big: 'x'.repeat(PROFILE_LIMITS.maxBytes) }) }), { create: false })
        .catch((error: unknown) => error);
      expect(tooLarge).toMatchObject({ code: 'payload_too_large' });

      expect((await profiles.read(ws, user('bo'))).properties).toEqual({ kept: true });
      expect(await announced(ws)).toHaveLength(1);
    });

    it('lets a profile stored past the limits shrink, never grow', async () => {
      const ws = newWorkspace();
      await save(ws, user('old'), document({}));
      const many = Object.fromEntries(Array.from({ length: PROFILE_LIMITS.maxProperties + 2 }, (_, i) => [`p${i}`, i]));
      // Stored before the limits existed.
      await db.query(`UPDATE audience.profiles SET properties = $2::jsonb WHERE workspace_id = $1`, [ws.id, JSON.stringify(many)]);
      const { p0: _gone, ...fewer } = many;
      const shrunk = await profiles.mutate(ws, user('old'), undefined, () => ({ ok: true, value: document(fewer) }), { create: false });
      expect(Object.keys(shrunk.properties)).toHaveLength(PROFILE_LIMITS.maxProperties + 1);
      await expect(profiles.mutate(ws, user('old'), undefined, set({ another: 1 }), { create: false })).rejects.toMatchObject({ code: 'payload_too_large' });
      expect(Object.keys((await profiles.read(ws, user('old'))).properties)).toHaveLength(PROFILE_LIMITS.maxProperties + 1);
    });

    it('applies concurrent changes of one profile in turn, none lost', async () => {
      const ws = newWorkspace();
      await save(ws, user('busy'), document({ n: 0 }));
      const increment = (current: ProfileDocument) => ({ ok: true as const, value: document({ n: (current.properties.n as number) + 1 }) });
      await Promise.all(Array.from({ length: 8 }, () => profiles.mutate(ws, user('busy'), undefined, increment, { create: false })));
      expect((await profiles.read(ws, user('busy'))).properties).toEqual({ n: 8 });
    });
  });

  describe('mutateIn', () => {
    it("writes in the caller's transaction and is undone with it, announcement included", async () => {
      const ws = newWorkspace();
      await save(ws, user('tx'), document({ v: 1 }));
      const failure = await db
        .transaction(async (tx) => {
          const written = await profiles.mutateIn(tx, ws, user('tx'), undefined, set({ v: 2 }), { create: false });
          expect(written.properties).toEqual({ v: 2 });
          expect((await profiles.read(ws, user('tx'), undefined, tx)).properties).toEqual({ v: 2 });
          await profiles.mutateIn(tx, ws, user('other'), undefined, set({ w: 1 }), { create: true });
          throw new Error('rolled back');
        })
        .catch((error: unknown) => error);
      expect(failure).toEqual(new Error('rolled back'));
      expect((await profiles.read(ws, user('tx'))).properties).toEqual({ v: 1 });
      expect(await profiles.exists(ws, user('other'))).toBe(false);
      expect(await announced(ws)).toHaveLength(1);
    });
  });

  describe('announceStored', () => {
    it('announces the profile as stored, naming the requests, and a profile gone as deleted', async () => {
      const ws = newWorkspace();
      await save(ws, user('cy'), document({ name: 'Cy' }, { sms: ['+15555550100'] }));
      await save(ws, user('cy'), document({ region: 'eu' }), 'acme');
      const before = (await announced(ws)).length;
      await profiles.announceStored(ws, user('cy'), undefined, ['m-2']);
      await profiles.announceStored(ws, user('cy'), 'acme', ['m-3', 'm-4']);
      await profiles.announceStored(ws, user('gone'), undefined, ['m-5']);
      expect((await announced(ws)).slice(before)).toEqual([
        { kind: 'profile', change: 'upserted', workspace_slug: ws.slug, subject: user('cy'), profile: { properties: { name: 'Cy' }, channels: { sms: ['+15555550100'] } }, source_message_ids: ['m-2'] },
        { kind: 'profile', change: 'upserted', workspace_slug: ws.slug, subject: user('cy'), tenant_id: 'acme', profile: { properties: { region: 'eu' }, channels: {} }, source_message_ids: ['m-3', 'm-4'] },
        { kind: 'profile', change: 'deleted', workspace_slug: ws.slug, subject: user('gone'), source_message_ids: ['m-5'] },
      ]);
      expect((await profiles.read(ws, user('cy'))).properties).toEqual({ name: 'Cy' });
    });
  });

  describe('once', () => {
    it('runs the work once per message and workspace, in one transaction with the claim', async () => {
      const ws = newWorkspace();
      const add = (tx: Parameters<Parameters<ProfileRepository['once']>[2]>[0]) =>
        profiles.mutateIn(tx, ws, user('counted'), undefined, (p) => ({ ok: true, value: document({ n: ((p.properties.n as number | undefined) ?? 0) + 1 }) }), { create: true });
      expect(await profiles.once(ws, 'm-1', async (tx) => void (await add(tx)))).toBe(true);
      expect(await profiles.once(ws, 'm-1', async (tx) => void (await add(tx)))).toBe(false);
      expect(await profiles.once(ws, 'm-2', async (tx) => void (await add(tx)))).toBe(true);
      // Another workspace's message of the same id is its own.
      const other = newWorkspace();
      expect(await profiles.once(other, 'm-1', async () => undefined)).toBe(true);
      expect((await profiles.read(ws, user('counted'))).properties).toEqual({ n: 2 });
    });

    it('forgets the claim when the work fails, so a redelivery runs it', async () => {
      const ws = newWorkspace();
      await expect(profiles.once(ws, 'm-fail', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      let ran = false;
      expect(await profiles.once(ws, 'm-fail', async () => void (ran = true))).toBe(true);
      expect(ran).toBe(true);
    });
  });

  describe('page', () => {
    it("pages a workspace's global users, or one type's objects with their subscription counts, by creation order", async () => {
      const ws = newWorkspace();
      for (const id of ['u1', 'u2', 'u3']) await save(ws, user(id), document({ id }));
      await save(ws, user('u1'), document({ tenant: true }), 'acme');
      await save(ws, object('teams', 'devs'), document({ name: 'Devs' }));
      await save(ws, object('teams', 'ops'), document({}));
      await save(ws, object('squads', 'web'), document({}));
      await save(newWorkspace(), user('theirs'), document({}));
      await new SubscriptionRepository(db, profiles, { now: () => now }).subscribe(ws, { object_type: 'teams', id: 'devs' }, {
        subscribers: [{ subject: user('u1'), profile: {} }, { subject: user('u2'), profile: {} }],
        properties: {},
      });

      const first = await profiles.page(ws, { subjectType: 'user' }, { limit: 2, sort: 'id' });
      expect(first.rows.map((row) => row.subject_id)).toEqual(['u1', 'u2']);
      expect(first.rows[0]).toMatchObject({ tenant_id: '', properties: { id: 'u1' }, channels: {}, subscriptions_count: 0 });
      expect(first.meta).toMatchObject({ count: 3, has_prev: false, has_next: true });
      const second = await profiles.page(ws, { subjectType: 'user' }, { limit: 2, sort: 'id', after: BigInt(first.meta.after!) });
      expect(second.rows.map((row) => row.subject_id)).toEqual(['u3']);

      const teams = await profiles.page(ws, { subjectType: 'object', objectType: 'teams' }, { limit: 10, sort: '-id' });
      expect(teams.rows.map((row) => [row.subject_id, row.subscriptions_count])).toEqual([
        ['ops', 0],
        ['devs', 2],
      ]);
    });
  });

  describe('read', () => {
    it("answers the global profile, with the tenant's merged over it, and the later of their times", async () => {
      const ws = newWorkspace();
      await save(ws, user('dee'), document({ name: 'Dee', plan: 'free' }, { email: ['dee@example.com'], sms: ['+1'] }));
      await save(ws, user('dee'), document({ plan: 'enterprise' }, { email: ['dee@acme.example'] }), 'acme');
      const global = await profiles.read(ws, user('dee'));
      expect(global).toMatchObject({ properties: { name: 'Dee', plan: 'free' }, channels: { email: ['dee@example.com'], sms: ['+1'] } });
      const merged = await profiles.read(ws, user('dee'), 'acme');
      expect(merged).toMatchObject({ properties: { name: 'Dee', plan: 'enterprise' }, channels: { email: ['dee@acme.example'], sms: ['+1'] } });
      expect(merged.updated_at.getTime()).toBeGreaterThanOrEqual(global.updated_at.getTime());
      expect(merged.created_at).toEqual(global.created_at);
      // A tenant the user has no profile in: the global one alone.
      expect(await profiles.read(ws, user('dee'), 'other')).toMatchObject({ properties: global.properties, channels: global.channels });
    });

    it('answers 404 without a global profile, even with one in the tenant', async () => {
      const ws = newWorkspace();
      await save(ws, user('tenant-only'), document({ a: 1 }), 'acme');
      await expect(profiles.read(ws, user('tenant-only'), 'acme')).rejects.toThrow("user 'tenant-only' not found");
      await expect(profiles.read(ws, object('teams', 'none'))).rejects.toThrow("object 'teams/none' not found");
    });
  });

  describe('mutateInTenant and readInTenant', () => {
    it("creates the user's tenant profile, and the global one when asked, announcing both", async () => {
      const ws = newWorkspace();
      const stored = await profiles.mutateInTenant(ws, 'eve', 'acme', set({ role: 'admin' }), { createUser: true });
      expect(stored).toMatchObject({ properties: { role: 'admin' }, channels: {} });
      expect(await profiles.readInTenant(ws, 'eve', 'acme')).toMatchObject({ tenant_id: 'acme', properties: { role: 'admin' }, channels: {} });
      expect((await profiles.read(ws, user('eve'))).properties).toEqual({});
      expect(await announced(ws)).toEqual([
        { kind: 'profile', change: 'upserted', workspace_slug: ws.slug, subject: user('eve'), profile: { properties: {}, channels: {} } },
        { kind: 'profile', change: 'upserted', workspace_slug: ws.slug, subject: user('eve'), tenant_id: 'acme', profile: { properties: { role: 'admin' }, channels: {} } },
      ]);
      const edited = await profiles.mutateInTenant(ws, 'eve', 'acme', set({ team: 'core' }), { createUser: false });
      expect(edited.properties).toEqual({ role: 'admin', team: 'core' });
    });

    it('answers 404 for a user without a global profile unless asked to create it, and for a tenant the user is not in', async () => {
      const ws = newWorkspace();
      await expect(profiles.mutateInTenant(ws, 'nobody', 'acme', set({ a: 1 }), { createUser: false })).rejects.toThrow("user 'nobody' not found");
      expect(await announced(ws)).toEqual([]);
      await save(ws, user('fay'), document({}));
      const missing = await profiles.readInTenant(ws, 'fay', 'acme').catch((error: unknown) => error);
      expect(missing).toMatchObject({ code: 'not_found', message: "user 'fay' has no profile in tenant 'acme'" });
      await expect(profiles.readInTenant(ws, 'fay', '')).resolves.toMatchObject({ tenant_id: '' });
    });
  });

  describe('tenantsOf and unlinkTenant', () => {
    it("pages the tenants a user is linked to in linking order, and unlinks one, announcing it deleted", async () => {
      const ws = newWorkspace();
      await save(ws, user('gil'), document({ name: 'Gil' }));
      for (const tenant of ['zeta', 'alpha', 'mid']) await save(ws, user('gil'), document({ tenant }), tenant);
      const first = await profiles.tenantsOf(ws, 'gil', { limit: 2, sort: 'id' });
      expect(first.rows.map((row) => row.tenant_id)).toEqual(['zeta', 'alpha']);
      expect(first.rows[0]).toMatchObject({ properties: { tenant: 'zeta' }, channels: {} });
      expect(first.meta).toMatchObject({ count: 3, has_next: true });

      await profiles.unlinkTenant(ws, 'gil', 'alpha');
      expect((await profiles.tenantsOf(ws, 'gil', { limit: 10, sort: 'id' })).rows.map((row) => row.tenant_id)).toEqual(['zeta', 'mid']);
      expect((await announced(ws)).at(-1)).toEqual({ kind: 'profile', change: 'deleted', workspace_slug: ws.slug, subject: user('gil'), tenant_id: 'alpha' });
      expect((await profiles.read(ws, user('gil'))).properties).toEqual({ name: 'Gil' });
    });

    it('answers 404 for a user that does not exist, and for unlinking a tenant the user is not in', async () => {
      const ws = newWorkspace();
      await expect(profiles.tenantsOf(ws, 'nobody', { limit: 10, sort: 'id' })).rejects.toThrow("user 'nobody' not found");
      await save(ws, user('hal'), document({}));
      expect((await profiles.tenantsOf(ws, 'hal', { limit: 10, sort: 'id' })).rows).toEqual([]);
      const before = await announced(ws);
      await expect(profiles.unlinkTenant(ws, 'hal', 'acme')).rejects.toThrow("user 'hal' has no profile in tenant 'acme'");
      // The empty tenant id is the global profile's row: never unlinked as a tenant.
      await expect(profiles.unlinkTenant(ws, 'hal', '')).rejects.toThrow("user 'hal' has no profile in tenant ''");
      expect(await profiles.exists(ws, user('hal'))).toBe(true);
      expect(await announced(ws)).toEqual(before);
    });
  });

  describe('exists', () => {
    it('answers whether the subject has a global profile', async () => {
      const ws = newWorkspace();
      await save(ws, object('teams', 'devs'), document({}));
      await save(ws, user('tenant-only'), document({}), 'acme');
      expect(await profiles.exists(ws, object('teams', 'devs'))).toBe(true);
      expect(await profiles.exists(ws, object('squads', 'devs'))).toBe(false);
      expect(await profiles.exists(ws, user('devs'))).toBe(false);
      expect(await profiles.exists(ws, user('tenant-only'))).toBe(false);
      expect(await profiles.exists(newWorkspace(), object('teams', 'devs'))).toBe(false);
      expect(await db.transaction((tx) => profiles.exists(ws, object('teams', 'devs'), tx, true))).toBe(true);
    });

    it('holds the row when asked to lock it, so a change of the subject waits for the transaction', async () => {
      const ws = newWorkspace();
      await save(ws, user('locked'), document({}));
      const order: string[] = [];
      let change: Promise<unknown> = Promise.resolve();
      await db.transaction(async (tx) => {
        expect(await profiles.exists(ws, user('locked'), tx, true)).toBe(true);
        change = profiles.mutate(ws, user('locked'), undefined, set({ after: true }), { create: false }).then(() => order.push('change'));
        await sleep(150);
        order.push('lock released');
      });
      await change;
      expect(order).toEqual(['lock released', 'change']);
    });

    if (target.kind === 'postgres') {
      it('holds nothing without the lock (Postgres: a change of the subject goes ahead)', async () => {
        const ws = newWorkspace();
        await save(ws, user('unlocked'), document({}));
        const order: string[] = [];
        await db.transaction(async (tx) => {
          expect(await profiles.exists(ws, user('unlocked'), tx)).toBe(true);
          await profiles.mutate(ws, user('unlocked'), undefined, set({ during: true }), { create: false }).then(() => order.push('change'));
          order.push('transaction ends');
        });
        expect(order).toEqual(['change', 'transaction ends']);
      });
    }
  });

  describe('delete', () => {
    it("deletes a user's every scope, preferences, subscriptions and list memberships, announcing each", async () => {
      const ws = newWorkspace();
      const lists = new ListRepository(db, { now: () => now });
      const subscriptions = new SubscriptionRepository(db, profiles, { now: () => now });
      const preferences = new PreferenceRepository(db);
      await save(ws, user('ivy'), document({ name: 'Ivy' }));
      await save(ws, user('ivy'), document({ t: 1 }), 'acme');
      await save(ws, user('kept'), document({}));
      await save(ws, object('teams', 'devs'), document({}));
      await db.transaction(async (tx) => {
        await preferences.saveCategory(tx, ws, user('ivy'), undefined, 'news', { preference: 'opt_out' });
        await preferences.saveChannels(tx, ws, user('ivy'), 'acme', [{ channel: 'sms', is_restricted: true }]);
      });
      await subscriptions.subscribe(ws, { object_type: 'teams', id: 'devs' }, { subscribers: [{ subject: user('ivy'), profile: {} }, { subject: user('kept'), profile: {} }], properties: {} });
      await lists.upsert(ws, { list_id: 'weekly' });
      await lists.add(ws, 'weekly', { distinct_ids: ['ivy', 'kept'] });
      const before = (await announced(ws)).length;

      await profiles.delete(ws, user('ivy'));
      expect(await profiles.exists(ws, user('ivy'))).toBe(false);
      await expect(profiles.readInTenant(ws, 'ivy', 'acme')).rejects.toThrow('has no profile');
      expect(await rowsOf(ws, 'category_preferences', 'ivy')).toBe(0);
      expect(await rowsOf(ws, 'channel_preferences', 'ivy')).toBe(0);
      expect(await profiles.subscriptionsCount(ws, 'teams', 'devs')).toBe(1);
      expect((await lists.read(ws, 'weekly')).subscribers_count).toBe(1);
      expect(await profiles.exists(ws, user('kept'))).toBe(true);

      const changes = (await announced(ws)).slice(before);
      expect(changes).toEqual(
        expect.arrayContaining([
          { kind: 'profile', change: 'deleted', workspace_slug: ws.slug, subject: user('ivy') },
          { kind: 'profile', change: 'deleted', workspace_slug: ws.slug, subject: user('ivy'), tenant_id: 'acme' },
        ]),
      );
      expect(changes.slice(2)).toEqual([
        { kind: 'object_subscriptions', workspace_slug: ws.slug, object: { object_type: 'teams', id: 'devs' }, added: [], removed: [user('ivy')] },
      ]);
    });

    it('deletes an object with its subscribers and the subscriptions it had, announcing both sides', async () => {
      const ws = newWorkspace();
      const subscriptions = new SubscriptionRepository(db, profiles, { now: () => now });
      await save(ws, object('teams', 'devs'), document({}));
      await save(ws, object('orgs', 'acme'), document({}));
      await subscriptions.subscribe(ws, { object_type: 'teams', id: 'devs' }, { subscribers: [{ subject: user('jo'), profile: {} }, { subject: object('squads', 'web'), profile: {} }], properties: {} });
      await subscriptions.subscribe(ws, { object_type: 'orgs', id: 'acme' }, { subscribers: [{ subject: object('teams', 'devs'), profile: {} }], properties: {} });
      const before = (await announced(ws)).length;

      await profiles.delete(ws, object('teams', 'devs'));
      expect(await profiles.exists(ws, object('teams', 'devs'))).toBe(false);
      expect(await profiles.subscriptionsCount(ws, 'teams', 'devs')).toBe(0);
      expect(await profiles.subscriptionsCount(ws, 'orgs', 'acme')).toBe(0);
      expect(await profiles.exists(ws, user('jo'))).toBe(true);
      expect((await announced(ws)).slice(before)).toEqual([
        { kind: 'profile', change: 'deleted', workspace_slug: ws.slug, subject: object('teams', 'devs') },
        { kind: 'object_subscriptions', workspace_slug: ws.slug, object: { object_type: 'orgs', id: 'acme' }, added: [], removed: [object('teams', 'devs')] },
        { kind: 'object_subscriptions', workspace_slug: ws.slug, object: { object_type: 'teams', id: 'devs' }, added: [], removed: [user('jo'), object('squads', 'web')] },
      ]);
    });

    it('answers 404 for a subject without a profile, deleting and announcing nothing', async () => {
      const ws = newWorkspace();
      await save(ws, user('other'), document({}));
      await expect(profiles.delete(ws, user('nobody'))).rejects.toThrow("user 'nobody' not found");
      await expect(profiles.delete(newWorkspace(), user('other'))).rejects.toThrow("user 'other' not found");
      expect(await profiles.exists(ws, user('other'))).toBe(true);
      expect(await announced(ws)).toHaveLength(1);
    });
  });

  describe('subscriptionsCount', () => {
    it("counts an object's subscribers, users and objects, in its workspace only", async () => {
      const ws = newWorkspace();
      const subscriptions = new SubscriptionRepository(db, profiles, { now: () => now });
      await save(ws, object('teams', 'devs'), document({}));
      expect(await profiles.subscriptionsCount(ws, 'teams', 'devs')).toBe(0);
      await subscriptions.subscribe(ws, { object_type: 'teams', id: 'devs' }, {
        subscribers: [{ subject: user('a'), profile: {} }, { subject: user('b'), profile: {} }, { subject: object('squads', 'web'), profile: {} }],
        properties: {},
      });
      expect(await profiles.subscriptionsCount(ws, 'teams', 'devs')).toBe(3);
      expect(await profiles.subscriptionsCount(ws, 'teams', 'ops')).toBe(0);
      expect(await profiles.subscriptionsCount(newWorkspace(), 'teams', 'devs')).toBe(0);
    });
  });
});

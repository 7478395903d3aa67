import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AudienceChanged, AudienceSubject } from '@herald/contracts';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { databaseTargets } from '@herald/testing';
import { CursorQuery } from '../http/cursor-page';
import { AUDIENCE_OUTBOX } from '../outbox/audience-events';
import { applyUpsert } from '../profiles/profile-document';
import { ProfileRepository } from '../profiles/profile.repository';
import { openAudienceDatabase } from '../testing/repository-database';
import { SubscriptionEntry, SubscriptionRepository } from './subscription.repository';

const user = (distinct_id: string): AudienceSubject => ({ type: 'user', distinct_id });
const object = (object_type: string, id: string): AudienceSubject => ({ type: 'object', object_type, id });
const name = (entry: SubscriptionEntry): string => entry.user?.distinct_id ?? `${entry.object?.object_type}/${entry.object?.id}`;
const newestFirst = (limit = 20, cursor: Partial<Pick<CursorQuery, 'before' | 'after'>> = {}): CursorQuery => ({ limit, sort: '-id', ...cursor });

describe.each(databaseTargets())('the subscription repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let profiles: ProfileRepository;
  let subscriptions: SubscriptionRepository;

  beforeAll(async () => {
    const opened = await openAudienceDatabase(target);
    db = opened.db;
    dispose = opened.close;
    const clock = { now: () => new Date('2026-03-01T10:00:00Z') };
    profiles = new ProfileRepository(db, clock);
    subscriptions = new SubscriptionRepository(db, profiles, clock);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const newWorkspace = (): AuthenticatedWorkspace => ({ id: randomUUID(), slug: `ws-${randomUUID().slice(0, 8)}` });
  const createProfile = (ws: AuthenticatedWorkspace, subject: AudienceSubject, properties: Record<string, unknown> = {}) =>
    profiles.mutate(ws, subject, undefined, (current) => applyUpsert(current, properties), { create: true });

  /** The workspace's subscription announcements, in order. */
  async function announced(ws: AuthenticatedWorkspace): Promise<Array<Extract<AudienceChanged, { kind: 'object_subscriptions' }>>> {
    const rows: Array<{ value: string }> = await db.query(`SELECT value FROM ${AUDIENCE_OUTBOX} ORDER BY id`);
    return rows
      .map((row) => (JSON.parse(row.value) as { payload: AudienceChanged }).payload)
      .flatMap((change) => (change.kind === 'object_subscriptions' && change.workspace_slug === ws.slug ? [change] : []));
  }

  it('subscribes users and objects, creating the profiles they lack, and answers the subscriptions in the order they were made', async () => {
    const ws = newWorkspace();
    await createProfile(ws, object('teams', 'devs'), { name: 'Developers' });
    await createProfile(ws, object('squads', 'web'));
    await subscriptions.subscribe(ws, { object_type: 'squads', id: 'web' }, { subscribers: [{ subject: user('zed'), profile: {} }], properties: {} });

    const added = await subscriptions.subscribe(ws, { object_type: 'teams', id: 'devs' }, {
      subscribers: [
        { subject: user('bob'), profile: { name: 'Bob' } },
        { subject: object('squads', 'web'), profile: { lead: 'carol' } },
        { subject: user('alice'), profile: {} },
      ],
      properties: { role: 'developer' },
    });
    expect(added.map(name)).toEqual(['bob', 'squads/web', 'alice']);
    expect(added[0]).toEqual({
      properties: { role: 'developer' },
      user: { distinct_id: 'bob', updated_at: expect.any(String) },
      object: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    // An object subscriber is counted: zed subscribes to squads/web.
    expect(added[1]).toMatchObject({ user: null, object: { id: 'web', object_type: 'squads', subscriptions_count: 1 }, properties: { role: 'developer' } });
    expect(await profiles.exists(ws, user('alice'))).toBe(true);
    expect((await profiles.read(ws, user('bob'))).properties).toEqual({ name: 'Bob' });
    expect((await profiles.read(ws, object('squads', 'web'))).properties).toEqual({ lead: 'carol' });

    expect((await announced(ws)).at(-1)).toEqual({
      kind: 'object_subscriptions',
      workspace_slug: ws.slug,
      object: { object_type: 'teams', id: 'devs' },
      added: [user('bob'), object('squads', 'web'), user('alice')],
      removed: [],
      properties: { role: 'developer' },
    });
  });

  it('replaces the properties of a subscription made again, which keeps its place and creation time', async () => {
    const ws = newWorkspace();
    await createProfile(ws, object('teams', 'ops'));
    const [first] = await subscriptions.subscribe(ws, { object_type: 'teams', id: 'ops' }, {
      subscribers: [{ subject: user('ann'), profile: {} }],
      properties: { role: 'member' },
    });
    await subscriptions.subscribe(ws, { object_type: 'teams', id: 'ops' }, { subscribers: [{ subject: user('ben'), profile: {} }], properties: {} });
    const [again] = await subscriptions.subscribe(ws, { object_type: 'teams', id: 'ops' }, { subscribers: [{ subject: user('ann'), profile: {} }], properties: { role: 'lead' } });
    expect(again).toMatchObject({ properties: { role: 'lead' }, created_at: first.created_at });
    expect(new Date(again.updated_at).getTime()).toBeGreaterThan(new Date(first.updated_at).getTime());

    const page = await subscriptions.subscribers(ws, { object_type: 'teams', id: 'ops' }, { limit: 20, sort: 'id' });
    expect(page.results.map(name)).toEqual(['ann', 'ben']);
    expect(page.results[0].properties).toEqual({ role: 'lead' });
    expect(page.meta).toMatchObject({ count: 2, has_prev: false, has_next: false });
  });

  it('pages the subscribers of an object by subscription id, in both directions', async () => {
    const ws = newWorkspace();
    await createProfile(ws, object('teams', 'big'));
    for (const id of ['u1', 'u2', 'u3', 'u4', 'u5']) {
      await subscriptions.subscribe(ws, { object_type: 'teams', id: 'big' }, { subscribers: [{ subject: user(id), profile: {} }], properties: {} });
    }
    const first = await subscriptions.subscribers(ws, { object_type: 'teams', id: 'big' }, newestFirst(2));
    expect(first.results.map(name)).toEqual(['u5', 'u4']);
    expect(first.meta).toMatchObject({ limit: 2, count: 5, has_prev: false, has_next: true });
    const second = await subscriptions.subscribers(ws, { object_type: 'teams', id: 'big' }, newestFirst(2, { after: BigInt(first.meta.after ?? '0') }));
    expect(second.results.map(name)).toEqual(['u3', 'u2']);
    const back = await subscriptions.subscribers(ws, { object_type: 'teams', id: 'big' }, newestFirst(2, { before: BigInt(second.meta.before ?? '0') }));
    expect(back.results.map(name)).toEqual(['u5', 'u4']);
    await expect(subscriptions.subscribers(ws, { object_type: 'teams', id: 'none' }, newestFirst())).rejects.toMatchObject({
      code: 'not_found',
      message: "object 'teams/none' not found",
    });
  });

  it('lists what a user or an object is subscribed to, with each object profile and count', async () => {
    const ws = newWorkspace();
    await createProfile(ws, object('teams', 'a'), { name: 'Team A' });
    await createProfile(ws, object('teams', 'b'), { name: 'Team B' });
    await createProfile(ws, object('orgs', 'acme'));
    await subscriptions.subscribe(ws, { object_type: 'teams', id: 'a' }, { subscribers: [{ subject: user('kim'), profile: {} }, { subject: user('lee'), profile: {} }], properties: { x: 1 } });
    await subscriptions.subscribe(ws, { object_type: 'teams', id: 'b' }, { subscribers: [{ subject: user('kim'), profile: {} }], properties: {} });
    await subscriptions.subscribe(ws, { object_type: 'orgs', id: 'acme' }, { subscribers: [{ subject: object('teams', 'a'), profile: {} }], properties: { kind: 'child' } });

    const kim = await subscriptions.subscribedTo(ws, user('kim'), { limit: 20, sort: 'id' });
    expect(kim.meta).toMatchObject({ count: 2 });
    expect(kim.results).toEqual([
      {
        properties: { x: 1 },
        object: { id: 'a', object_type: 'teams', properties: { name: 'Team A' }, subscriptions_count: 2, updated_at: expect.any(String) },
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
      expect.objectContaining({ properties: {}, object: expect.objectContaining({ id: 'b', properties: { name: 'Team B' }, subscriptions_count: 1 }) }),
    ]);
    const team = await subscriptions.subscribedTo(ws, object('teams', 'a'), { limit: 20, sort: 'id' });
    expect(team.results).toEqual([expect.objectContaining({ properties: { kind: 'child' }, object: expect.objectContaining({ id: 'acme', object_type: 'orgs', subscriptions_count: 1 }) })]);
    expect((await subscriptions.subscribedTo(ws, object('orgs', 'acme'), { limit: 20, sort: 'id' })).results).toEqual([]);
    await expect(subscriptions.subscribedTo(ws, user('nobody'), newestFirst())).rejects.toThrow("user 'nobody' not found");
  });

  it('unsubscribes only the named subscribers of that object, announcing those it removed', async () => {
    const ws = newWorkspace();
    const other = newWorkspace();
    for (const w of [ws, other]) {
      await createProfile(w, object('teams', 'x'));
      await createProfile(w, object('teams', 'y'));
      await subscriptions.subscribe(w, { object_type: 'teams', id: 'x' }, {
        subscribers: [{ subject: user('a'), profile: {} }, { subject: user('b'), profile: {} }, { subject: object('teams', 'y'), profile: {} }],
        properties: {},
      });
      await subscriptions.subscribe(w, { object_type: 'teams', id: 'y' }, { subscribers: [{ subject: user('a'), profile: {} }], properties: {} });
    }

    await subscriptions.unsubscribe(ws, { object_type: 'teams', id: 'x' }, [user('a'), object('teams', 'y'), user('never')]);
    expect((await subscriptions.subscribers(ws, { object_type: 'teams', id: 'x' }, newestFirst())).results.map(name)).toEqual(['b']);
    // a stays subscribed to y, and the other workspace keeps all of its subscriptions.
    expect((await subscriptions.subscribers(ws, { object_type: 'teams', id: 'y' }, newestFirst())).results.map(name)).toEqual(['a']);
    expect((await subscriptions.subscribers(other, { object_type: 'teams', id: 'x' }, newestFirst())).results.map(name)).toEqual(['teams/y', 'b', 'a']);

    const last = (await announced(ws)).at(-1);
    expect(last).toMatchObject({ object: { object_type: 'teams', id: 'x' }, added: [] });
    expect(last?.removed).toHaveLength(2);
    expect(last?.removed).toEqual(expect.arrayContaining([user('a'), object('teams', 'y')]));

    // Naming only subscribers that are not subscribed removes nothing and announces nothing.
    const before = (await announced(ws)).length;
    await subscriptions.unsubscribe(ws, { object_type: 'teams', id: 'x' }, [user('never')]);
    expect((await announced(ws)).length).toBe(before);
    await expect(subscriptions.unsubscribe(ws, { object_type: 'teams', id: 'gone' }, [user('b')])).rejects.toThrow("object 'teams/gone' not found");
  });

  it('refuses to subscribe to an object that does not exist, creating nothing', async () => {
    const ws = newWorkspace();
    await expect(
      subscriptions.subscribe(ws, { object_type: 'teams', id: 'ghost' }, { subscribers: [{ subject: user('eve'), profile: {} }], properties: {} }),
    ).rejects.toMatchObject({ code: 'not_found', shape: 'short', message: "object 'teams/ghost' not found" });
    expect(await profiles.exists(ws, user('eve'))).toBe(false);
    expect(await announced(ws)).toEqual([]);
  });
});

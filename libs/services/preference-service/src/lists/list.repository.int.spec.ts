import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AudienceChanged } from '@herald/contracts';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { databaseTargets } from '@herald/testing';
import { AUDIENCE_OUTBOX } from '../outbox/audience-events';
import { openAudienceDatabase } from '../testing/repository-database';
import { ProfileRepository } from '../profiles/profile.repository';
import { ListRepository } from './list.repository';

describe.each(databaseTargets())('the list repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let lists: ListRepository;
  let profiles: ProfileRepository;
  const now = new Date('2026-03-01T10:00:00Z');

  beforeAll(async () => {
    const opened = await openAudienceDatabase(target);
    db = opened.db;
    dispose = opened.close;
    lists = new ListRepository(db, { now: () => now });
    profiles = new ProfileRepository(db, { now: () => now });
  });
  afterAll(async () => {
    await dispose?.();
  });

  const newWorkspace = (): AuthenticatedWorkspace => {
    const id = randomUUID();
    return { id, slug: `ws-${id.slice(0, 8)}` };
  };
  const members = (...distinct_ids: string[]) => ({ distinct_ids });
  const newest = { limit: 20, sort: '-id' as const };

  /** The workspace's announcements, in order. */
  async function announced(ws: AuthenticatedWorkspace): Promise<AudienceChanged[]> {
    const rows: Array<{ value: string }> = await db.query(`SELECT value FROM ${AUDIENCE_OUTBOX} ORDER BY id`);
    return rows
      .map((row) => JSON.parse(row.value) as { workspace_id: string; payload: AudienceChanged })
      .filter((envelope) => envelope.workspace_id === ws.id)
      .map((envelope) => envelope.payload);
  }

  it('creates a list with defaults, renames and redescribes it keeping what the body leaves out, and announces each', async () => {
    const ws = newWorkspace();
    const created = await lists.upsert(ws, { list_id: '  weekly ' });
    expect(created).toMatchObject({ list_id: 'weekly', list_name: 'weekly', list_description: '', list_type: 'static_list', subscribers_count: 0, status: 'active', drafts: null });
    expect(Date.parse(created.created_at)).not.toBeNaN();
    const renamed = await lists.upsert(ws, { list_id: 'weekly', list_name: 'Weekly digest', list_description: 'Every Monday' });
    expect(renamed).toMatchObject({ list_name: 'Weekly digest', list_description: 'Every Monday', created_at: created.created_at });
    const kept = await lists.upsert(ws, { list_id: 'weekly', list_name: null, list_description: 'Mondays' });
    expect(kept).toMatchObject({ list_name: 'Weekly digest', list_description: 'Mondays' });
    expect(await lists.read(ws, 'weekly')).toEqual(kept);

    const changes = await announced(ws);
    expect(changes).toEqual([
      { kind: 'list', change: 'upserted', workspace_slug: ws.slug, list_id: 'weekly', list: created },
      { kind: 'list', change: 'upserted', workspace_slug: ws.slug, list_id: 'weekly', list: renamed },
      { kind: 'list', change: 'upserted', workspace_slug: ws.slug, list_id: 'weekly', list: kept },
    ]);
  });

  it('answers 404 for a list the workspace does not have, also inside a transaction', async () => {
    const ws = newWorkspace();
    await lists.upsert(newWorkspace(), { list_id: 'theirs' });
    await expect(lists.read(ws, 'theirs')).rejects.toThrow('list_id: theirs not found');
    await expect(db.transaction((tx) => lists.list(tx, ws, 'theirs', true))).rejects.toThrow('list_id: theirs not found');
    await expect(lists.add(ws, 'theirs', members('a'))).rejects.toThrow('list_id: theirs not found');
    await expect(lists.remove(ws, 'theirs', members('a'))).rejects.toThrow('list_id: theirs not found');
    await expect(lists.delete(ws, 'theirs')).rejects.toThrow('list_id: theirs not found');
    await expect(lists.page(ws, 'theirs', newest)).rejects.toThrow('list_id: theirs not found');
    expect(await announced(ws)).toEqual([]);
  });

  it('reads a list in the caller\'s transaction, locked when asked', async () => {
    const ws = newWorkspace();
    await lists.upsert(ws, { list_id: 'locked', list_name: 'Locked' });
    const [view, stored] = await db.transaction(async (tx) => [await lists.read(ws, 'locked', tx), await lists.list(tx, ws, 'locked', true)] as const);
    expect(view).toMatchObject({ list_id: 'locked', list_name: 'Locked' });
    expect(stored).toMatchObject({ workspaceId: ws.id, listId: 'locked', listName: 'Locked', listDescription: '', subscribersCount: 0 });
    expect(stored.createdAt).toBeInstanceOf(Date);
  });

  it('adds and removes members each once, keeps the count, and announces only what changed', async () => {
    const ws = newWorkspace();
    await lists.upsert(ws, { list_id: 'team' });
    expect(await lists.add(ws, 'team', members('ana', 'bo', 'ana', 'cy'))).toBe(3);
    expect(await lists.add(ws, 'team', members('bo', 'dee'))).toBe(1);
    expect(await lists.add(ws, 'team', members('bo'))).toBe(0);
    expect(await lists.remove(ws, 'team', members('cy', 'zed', 'cy'))).toBe(1);
    expect(await lists.remove(ws, 'team', members('zed'))).toBe(0);
    expect((await lists.read(ws, 'team')).subscribers_count).toBe(3);

    const page = await lists.page(ws, 'team', { limit: 10, sort: 'id' });
    expect(page.results.map((entry) => entry.distinct_id)).toEqual(['ana', 'bo', 'dee']);
    expect(page.meta).toMatchObject({ count: 3, has_prev: false, has_next: false });

    const changes = (await announced(ws)).filter((change) => change.kind === 'list_subscribers');
    expect(changes).toEqual([
      { kind: 'list_subscribers', workspace_slug: ws.slug, list_id: 'team', added: ['ana', 'bo', 'cy'], removed: [] },
      { kind: 'list_subscribers', workspace_slug: ws.slug, list_id: 'team', added: ['dee'], removed: [] },
      { kind: 'list_subscribers', workspace_slug: ws.slug, list_id: 'team', added: [], removed: ['cy'] },
    ]);
  });

  it('keeps the count exact under concurrent adds and removes', async () => {
    const ws = newWorkspace();
    await lists.upsert(ws, { list_id: 'busy' });
    const ids = Array.from({ length: 12 }, (_, i) => `m${i}`);
    await Promise.all(ids.map((id, i) => lists.add(ws, 'busy', members(id, ids[(i + 1) % ids.length]))));
    await Promise.all(ids.slice(0, 4).map((id) => lists.remove(ws, 'busy', members(id))));
    expect((await lists.read(ws, 'busy')).subscribers_count).toBe(8);
    expect((await lists.page(ws, 'busy', { limit: 100, sort: 'id' })).results).toHaveLength(8);
  });

  it('keeps the count of, and announces, a membership change made in the caller\'s transaction', async () => {
    const ws = newWorkspace();
    const before = await lists.upsert(ws, { list_id: 'direct' });
    await db.transaction(async (tx) => {
      await lists.list(tx, ws, 'direct', true);
      await lists.changed(tx, ws, 'direct', ['x', 'y'], ['z']);
      await lists.changed(tx, ws, 'direct', [], []);
    });
    const after = await lists.read(ws, 'direct');
    expect(after.subscribers_count).toBe(1);
    expect(Date.parse(after.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
    expect((await announced(ws)).filter((change) => change.kind === 'list_subscribers')).toEqual([
      { kind: 'list_subscribers', workspace_slug: ws.slug, list_id: 'direct', added: ['x', 'y'], removed: ['z'] },
    ]);
  });

  it('pages members by id in either order, with cursors both ways', async () => {
    const ws = newWorkspace();
    await lists.upsert(ws, { list_id: 'paged' });
    await lists.add(ws, 'paged', members('u1', 'u2', 'u3', 'u4', 'u5'));
    const first = await lists.page(ws, 'paged', { limit: 2, sort: '-id' });
    expect(first.results.map((entry) => entry.distinct_id)).toEqual(['u5', 'u4']);
    expect(first.meta).toMatchObject({ limit: 2, count: 5, has_prev: false, has_next: true });
    expect(first.results[0]).toEqual({ id: expect.stringMatching(/^\d+$/), distinct_id: 'u5', created_at: expect.any(String) });
    const second = await lists.page(ws, 'paged', { limit: 2, sort: '-id', after: BigInt(first.meta.after!) });
    expect(second.results.map((entry) => entry.distinct_id)).toEqual(['u3', 'u2']);
    expect(second.meta).toMatchObject({ has_prev: true, has_next: true });
    const back = await lists.page(ws, 'paged', { limit: 2, sort: '-id', before: BigInt(second.meta.before!) });
    expect(back.results.map((entry) => entry.distinct_id)).toEqual(['u5', 'u4']);
  });

  it('lists the workspace\'s lists newest first with offset paging and the total', async () => {
    const ws = newWorkspace();
    expect(await lists.all(ws, 10, 0)).toEqual({ meta: { count: 0, limit: 10, offset: 0 }, results: [] });
    for (const id of ['a', 'b', 'c']) {
      await lists.upsert(ws, { list_id: id });
      // Distinct created_at values (now() is the transaction's start).
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await lists.upsert(newWorkspace(), { list_id: 'elsewhere' });
    const all = await lists.all(ws, 2, 0);
    expect(all.meta).toEqual({ count: 3, limit: 2, offset: 0 });
    expect(all.results.map((list) => list.list_id)).toEqual(['c', 'b']);
    const rest = await lists.all(ws, 2, 2);
    expect(rest).toMatchObject({ meta: { count: 3, limit: 2, offset: 2 }, results: [{ list_id: 'a', list_type: 'static_list' }] });
    expect(await lists.all(ws, 2, 10)).toEqual({ meta: { count: 3, limit: 2, offset: 10 }, results: [] });
  });

  it("pages a user's lists, newest membership first, with when they joined", async () => {
    const ws = newWorkspace();
    await lists.upsert(ws, { list_id: 'first', list_name: 'First' });
    await lists.upsert(ws, { list_id: 'second' });
    await lists.upsert(ws, { list_id: 'third' });
    await lists.add(ws, 'first', members('ana'));
    await lists.add(ws, 'third', members('bo'));
    await lists.add(ws, 'second', members('ana'));
    const page = await lists.listsOf(ws, 'ana', newest);
    expect(page.results.map((entry) => entry.list.list_id)).toEqual(['second', 'first']);
    expect(page.results[1]).toEqual({ list: { ...(await lists.read(ws, 'first')) }, created_at: expect.any(String) });
    expect(Date.parse(page.results[1].created_at)).not.toBeNaN();
    expect(page.meta).toMatchObject({ count: 2, has_prev: false, has_next: false });
    expect((await lists.listsOf(ws, 'ana', { limit: 1, sort: 'id' })).results.map((entry) => entry.list.list_id)).toEqual(['first']);
    expect((await lists.listsOf(newWorkspace(), 'ana', newest)).results).toEqual([]);
  });

  it('deletes a list with its members and announces it', async () => {
    const ws = newWorkspace();
    await lists.upsert(ws, { list_id: 'gone' });
    await lists.add(ws, 'gone', members('ana'));
    await lists.delete(ws, 'gone');
    await expect(lists.read(ws, 'gone')).rejects.toThrow('not found');
    expect((await lists.listsOf(ws, 'ana', newest)).results).toEqual([]);
    // A list made again under the id starts empty.
    await lists.upsert(ws, { list_id: 'gone' });
    expect((await lists.page(ws, 'gone', newest)).results).toEqual([]);
    expect((await announced(ws)).filter((change) => change.kind === 'list').map((change) => (change.kind === 'list' ? change.change : undefined))).toEqual([
      'upserted',
      'deleted',
      'upserted',
    ]);
  });

  it('counts the members a broadcast fans out to, 0 for a list that does not exist', async () => {
    const ws = newWorkspace();
    await lists.upsert(ws, { list_id: 'news' });
    expect(await lists.memberCount(ws.id, 'news')).toBe(0);
    await lists.add(ws, 'news', members('a', 'b', 'c'));
    await lists.remove(ws, 'news', members('b'));
    await lists.upsert(ws, { list_id: 'other' });
    await lists.add(ws, 'other', members('z'));
    expect(await lists.memberCount(ws.id, 'news')).toBe(2);
    expect(await lists.memberCount(ws.id, 'missing')).toBe(0);
    expect(await lists.memberCount(newWorkspace().id, 'news')).toBe(0);
  });

  it("pages a broadcast's members by id, each with its global profile and its profile in the broadcast's tenant", async () => {
    const ws = newWorkspace();
    await lists.upsert(ws, { list_id: 'news' });
    await lists.add(ws, 'news', members('ana', 'bo', 'cy'));
    await lists.upsert(ws, { list_id: 'other' });
    await lists.add(ws, 'other', members('dee'));
    const user = (distinct_id: string) => ({ type: 'user' as const, distinct_id });
    const set = (document: { properties: Record<string, string>; channels: Record<string, string[]> }) => () => ({ ok: true as const, value: document });
    await profiles.mutate(ws, user('ana'), undefined, set({ properties: { name: 'Ana' }, channels: { $email: ['ana@example.com'] } }), { create: true });
    await profiles.mutate(ws, user('ana'), 'acme', set({ properties: { plan: 'pro' }, channels: { $sms: ['+15555550100'] } }), { create: true });
    await profiles.mutate(ws, user('bo'), undefined, set({ properties: { name: 'Bo' }, channels: {} }), { create: true });
    // A profile of another workspace is not the member's.
    await profiles.mutate(newWorkspace(), user('cy'), undefined, set({ properties: { name: 'Not cy' }, channels: {} }), { create: true });

    const all = await lists.broadcastMembers(ws.id, 'news', 'acme', '0', 10);
    expect(all.map(({ id: _id, ...member }) => member)).toEqual([
      { distinct_id: 'ana', global_properties: { name: 'Ana' }, global_channels: { $email: ['ana@example.com'] }, tenant_properties: { plan: 'pro' }, tenant_channels: { $sms: ['+15555550100'] } },
      { distinct_id: 'bo', global_properties: { name: 'Bo' }, global_channels: {}, tenant_properties: null, tenant_channels: null },
      { distinct_id: 'cy', global_properties: null, global_channels: null, tenant_properties: null, tenant_channels: null },
    ]);
    expect(all.map((member) => member.id)).toEqual((await lists.page(ws, 'news', { limit: 10, sort: 'id' })).results.map((entry) => entry.id));
    expect(BigInt(all[0].id) < BigInt(all[1].id)).toBe(true);

    // Without a tenant ('', the global scope) the tenant's columns repeat the global profile (merged over itself, it stays the same).
    expect((await lists.broadcastMembers(ws.id, 'news', '', '0', 10))[0]).toMatchObject({
      distinct_id: 'ana',
      tenant_properties: { name: 'Ana' },
      tenant_channels: { $email: ['ana@example.com'] },
    });
    // Pages of `limit`, after the last id read.
    const first = await lists.broadcastMembers(ws.id, 'news', '', '0', 2);
    expect(first.map((member) => member.distinct_id)).toEqual(['ana', 'bo']);
    const rest = await lists.broadcastMembers(ws.id, 'news', '', first[1].id, 2);
    expect(rest.map((member) => member.distinct_id)).toEqual(['cy']);
    expect(await lists.broadcastMembers(ws.id, 'news', '', rest[0].id, 2)).toEqual([]);
    expect(await lists.broadcastMembers(ws.id, 'missing', '', '0', 2)).toEqual([]);
  });
});

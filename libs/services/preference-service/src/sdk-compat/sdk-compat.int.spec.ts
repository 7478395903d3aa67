import { runModeTargets } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { AudienceTestApp, startAudienceTestApp } from '../testing/audience-test-app';

type Json = Record<string, unknown>;
const values = (body: unknown, key: string): unknown[] => (((body as Json)[key] ?? []) as Array<{ value: unknown }>).map((entry) => entry.value);

describe.each(runModeTargets())('the SDK calls beyond the reference basics ($name)', ({ database, bus }) => {
  let t: AudienceTestApp;

  beforeAll(async () => {
    t = await startAudienceTestApp(database, bus);
  });
  afterAll(() => t?.close());

  const members = async (listId: string): Promise<string[]> =>
    ((await t.call('GET', `v1/subscriber_list/${listId}/subscriber/?limit=100`)).body as { results: Array<{ distinct_id: string }> }).results.map((m) => m.distinct_id).sort();

  describe('users.merge', () => {
    it("gives the primary the secondary's channels and missing properties, then deletes the secondary", async () => {
      await t.call('POST', 'v1/user/merge-primary/', { $email: ['p@example.com'], plan: 'pro', name: 'Primary' });
      await t.call('POST', 'v1/user/merge-secondary/', { $email: ['s@example.com', 'p@example.com'], $sms: ['+15555550100'], name: 'Secondary', company: 'Acme' });
      const merged = await t.signedCall('POST', 'v1/user/merge-primary/merge/', JSON.stringify({ from_user_id: 'merge-secondary' }));
      expect(merged.status).toBe(201);
      expect(values(merged.body, '$email')).toEqual(['p@example.com', 's@example.com']);
      expect(values(merged.body, '$sms')).toEqual(['+15555550100']);
      expect((merged.body as Json).properties).toEqual({ plan: 'pro', name: 'Primary', company: 'Acme' });
      expect((await t.call('GET', 'v1/user/merge-secondary/')).status).toBe(404);
    });

    it('answers 404 naming the missing user, and 400 for a bad from_user_id', async () => {
      await t.call('POST', 'v1/user/merge-alone/', {});
      expect(await t.call('POST', 'v1/user/merge-alone/merge/', { from_user_id: 'nobody' })).toEqual({ status: 404, body: { code: 404, message: "from_user_id: [distinct_id: 'nobody'] not found" } });
      await t.call('POST', 'v1/user/merge-other/', {});
      expect((await t.call('POST', 'v1/user/nobody/merge/', { from_user_id: 'merge-other' })).status).toBe(404);
      for (const body of [{}, { from_user_id: 5 }, { from_user_id: 'merge-alone' }]) {
        const bad = await t.call('POST', 'v1/user/merge-alone/merge/', body);
        expect(bad.status).toBe(400);
        expect((bad.body as Json).detail).toContain('from_user_id');
      }
    });
  });

  describe('users.get_lists_subscribed_to', () => {
    it("pages the user's lists, newest membership first", async () => {
      for (const list of ['lists-of-a', 'lists-of-b', 'lists-of-c']) {
        await t.call('POST', 'v1/subscriber_list/', { list_id: list });
        await t.call('POST', `v1/subscriber_list/${list}/subscriber/add/`, { distinct_ids: ['lists-user'] });
      }
      const first = await t.signedCall('GET', 'v1/user/lists-user/subscribed_to/list/?limit=2', undefined);
      expect(first.status).toBe(200);
      const page = first.body as { meta: { has_next: boolean; after: string; count: number }; results: Array<{ list: { list_id: string } }> };
      expect(page.results.map((r) => r.list.list_id)).toEqual(['lists-of-c', 'lists-of-b']);
      expect(page.meta).toMatchObject({ has_next: true, count: 3 });
      const next = (await t.call('GET', `v1/user/lists-user/subscribed_to/list/?limit=2&after=${page.meta.after}`)).body as typeof page;
      expect(next.results.map((r) => r.list.list_id)).toEqual(['lists-of-a']);
      expect((await t.call('GET', 'v1/user/lists-user/subscribed_to/list/?limit=0')).status).toBe(400);
    });
  });

  describe('bulk deletes', () => {
    it('deletes every user and object named, skips unknown ids, and names bad fields', async () => {
      for (const id of ['bulk-u1', 'bulk-u2']) await t.call('POST', `v1/user/${id}/`, {});
      for (const id of ['o1', 'o2']) await t.call('POST', `v1/object/bulk-teams/${id}/`, {});
      expect((await t.signedCall('DELETE', 'v1/bulk/user/', JSON.stringify({ distinct_ids: ['bulk-u1', 'bulk-u2', 'bulk-never'] }))).status).toBe(204);
      expect((await t.call('GET', 'v1/user/bulk-u1/')).status).toBe(404);
      expect((await t.call('GET', 'v1/user/bulk-u2/')).status).toBe(404);
      expect((await t.call('DELETE', 'v1/bulk/object/bulk-teams/', { object_ids: ['o1', 'o2'] })).status).toBe(204);
      expect((await t.call('GET', 'v1/object/bulk-teams/o2/')).status).toBe(404);
      const bad = await t.call('DELETE', 'v1/bulk/user/', { distinct_ids: ['ok', ''] });
      expect(bad.status).toBe(400);
      expect((bad.body as Json).detail).toContain('distinct_ids[1]');
      expect((await t.call('DELETE', 'v1/bulk/object/bulk-teams/', { distinct_ids: ['o1'] })).body).toMatchObject({ detail: expect.stringContaining('object_ids') });
      expect((await t.call('DELETE', 'v1/bulk/user/')).status).toBe(400);
    });
  });

  it('answers junk on every new endpoint with a 4xx, never a 5xx', async () => {
    await t.call('POST', 'v1/user/junk-user/', {});
    await t.call('POST', 'v1/subscriber_list/', { list_id: 'junk-list' });
    const version = ((await t.call('POST', 'v1/subscriber_list/junk-list/start_sync/', {})).body as { version_id: string }).version_id;
    const junk: unknown[] = [null, [], 'text', 7, true, {}, { from_user_id: ['x'] }, { distinct_ids: 'x' }, { object_ids: [null] }, { distinct_ids: [{}] }, { brand_name: {} }, { __proto__: { x: 1 } }];
    const endpoints: Array<[string, string]> = [
      ['POST', 'v1/user/junk-user/merge/'],
      ['DELETE', 'v1/bulk/user/'],
      ['DELETE', 'v1/bulk/object/junk-type/'],
      ['POST', `v1/subscriber_list/junk-list/version/${version}/subscriber/add/`],
      ['POST', `v1/subscriber_list/junk-list/version/${version}/subscriber/remove/`],
      ['POST', 'v1/brand/junk-brand/'],
    ];
    for (const [method, path] of endpoints) {
      for (const body of junk) {
        const response = await t.call(method, path, body);
        expect({ method, path, body, status: response.status < 500 }).toEqual({ method, path, body, status: true });
      }
    }
    for (const query of ['limit=x', 'after=-1', 'before=1&after=2', 'sort=up', 'limit=100000']) {
      expect((await t.call('GET', `v1/user/junk-user/subscribed_to/list/?${query}`)).status).toBe(400);
      expect((await t.call('GET', `v1/brand/?${query}`)).status).toBeLessThan(500);
    }
  });

  describe('list versions (start_sync ... finish_sync)', () => {
    it("replaces the list's members with the draft's when the sync finishes, and not before", async () => {
      await t.call('POST', 'v1/subscriber_list/', { list_id: 'synced' });
      await t.call('POST', 'v1/subscriber_list/synced/subscriber/add/', { distinct_ids: ['keep', 'drop'] });
      const started = await t.signedCall('POST', 'v1/subscriber_list/synced/start_sync/', '{}');
      expect(started).toMatchObject({ status: 201, body: { list_id: 'synced', status: 'draft', subscribers_count: 0, version_id: expect.stringMatching(/^[0-9A-Z]{26}$/) } });
      const version = (started.body as { version_id: string }).version_id;
      expect(await t.call('POST', `v1/subscriber_list/synced/version/${version}/subscriber/add/`, { distinct_ids: ['keep', 'new-1', 'new-2'] })).toMatchObject({ status: 201, body: { affected_count: 3 } });
      expect(await t.call('POST', `v1/subscriber_list/synced/version/${version}/subscriber/remove/`, { distinct_ids: ['new-2'] })).toMatchObject({ body: { affected_count: 1 } });
      expect(await t.call('GET', `v1/subscriber_list/synced/version/${version}/`)).toMatchObject({ status: 200, body: { status: 'draft', subscribers_count: 2, version_id: version } });
      // The live list is untouched while the draft fills.
      expect(await members('synced')).toEqual(['drop', 'keep']);

      const finished = await t.call('PATCH', `v1/subscriber_list/synced/version/${version}/finish_sync/`, {});
      expect(finished).toMatchObject({ status: 200, body: { list_id: 'synced', status: 'active', subscribers_count: 2, version_id: null } });
      expect(await members('synced')).toEqual(['keep', 'new-1']);
      // One announcement of the swap, so the engine's copy of the list follows.
      await expectEventually(() =>
        expect(t.changes.map((c) => c.change).filter((c) => c.kind === 'list_subscribers' && c.list_id === 'synced').slice(-1)).toEqual([
          expect.objectContaining({ added: ['new-1'], removed: ['drop'] }),
        ]),
      );
      // The draft is gone once finished.
      expect(await t.call('GET', `v1/subscriber_list/synced/version/${version}/`)).toMatchObject({ status: 404, body: { message: `version_id ${version} not found for list_id synced` } });
    });

    it('drops a deleted draft without touching the list; unknown lists and versions are 404, bad ids 400', async () => {
      await t.call('POST', 'v1/subscriber_list/', { list_id: 'discarded' });
      await t.call('POST', 'v1/subscriber_list/discarded/subscriber/add/', { distinct_ids: ['stay'] });
      const version = ((await t.call('POST', 'v1/subscriber_list/discarded/start_sync/', {})).body as { version_id: string }).version_id;
      await t.call('POST', `v1/subscriber_list/discarded/version/${version}/subscriber/add/`, { distinct_ids: ['never'] });
      expect(await t.call('PATCH', `v1/subscriber_list/discarded/version/${version}/delete/`, {})).toEqual({ status: 200, body: { success: true } });
      expect(await members('discarded')).toEqual(['stay']);
      expect((await t.call('PATCH', `v1/subscriber_list/discarded/version/${version}/finish_sync/`, {})).status).toBe(404);
      expect(await t.call('POST', 'v1/subscriber_list/no-such-list/start_sync/', {})).toMatchObject({ status: 404, body: { message: 'list_id: no-such-list not found' } });
      expect((await t.call('GET', 'v1/subscriber_list/no-such-list/version/X/')).body).toMatchObject({ message: 'list_id: no-such-list not found' });
      const other = ((await t.call('POST', 'v1/subscriber_list/discarded/start_sync/', {})).body as { version_id: string }).version_id;
      const bad = await t.call('POST', `v1/subscriber_list/discarded/version/${other}/subscriber/add/`, { distinct_ids: [7] });
      expect(bad.status).toBe(400);
      expect((bad.body as Json).detail).toContain('distinct_ids[0]');
    });

    it("takes suprsend-py-sdk's DELETE forms of delete_version and delete, as the PATCH .../delete/ ones", async () => {
      await t.call('POST', 'v1/subscriber_list/', { list_id: 'py-deleted' });
      await t.call('POST', 'v1/subscriber_list/py-deleted/subscriber/add/', { distinct_ids: ['stay'] });
      const version = ((await t.call('POST', 'v1/subscriber_list/py-deleted/start_sync/', {})).body as { version_id: string }).version_id;
      expect(await t.signedCall('DELETE', `v1/subscriber_list/py-deleted/version/${version}/`, '')).toEqual({ status: 200, body: { success: true } });
      expect(await members('py-deleted')).toEqual(['stay']);
      expect((await t.call('GET', `v1/subscriber_list/py-deleted/version/${version}/`)).status).toBe(404);
      expect(await t.signedCall('DELETE', 'v1/subscriber_list/py-deleted/', '')).toEqual({ status: 200, body: { success: true } });
      expect((await t.call('GET', 'v1/subscriber_list/py-deleted/')).status).toBe(404);
      expect((await t.signedCall('DELETE', 'v1/subscriber_list/py-deleted/', '')).status).toBe(404);
    });
  });
});

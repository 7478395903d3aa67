import { AudienceChanged } from '@herald/contracts';
import { runModeTargets } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { AudienceTestApp, startAudienceTestApp } from '../testing/audience-test-app';

type Json = Record<string, unknown>;
interface Page {
  meta: { limit: number; count: number; before: string | null; after: string | null; has_prev: boolean; has_next: boolean };
  results: Json[];
}
const page = (body: unknown): Page => body as Page;
const subscriberNames = (body: unknown): string[] =>
  page(body).results.map((r) => ((r.user as Json | null)?.distinct_id as string | undefined) ?? `${(r.object as Json).object_type}/${(r.object as Json).id}`);

describe.each(runModeTargets())('object subscriptions and audience lists ($name)', ({ database, bus }) => {
  let t: AudienceTestApp;
  const subscriptionChanges = (objectId: string): AudienceChanged[] =>
    t.changes.filter((c) => c.change.kind === 'object_subscriptions' && c.change.object.id === objectId).map((c) => c.change);

  beforeAll(async () => {
    t = await startAudienceTestApp(database, bus);
  });
  afterAll(() => t?.close());

  describe('subscriptions of an object', () => {
    beforeAll(async () => {
      expect((await t.call('POST', 'v1/object/teams/devs/', { name: 'Developers' })).status).toBe(201);
    });

    it('subscribes users and child objects, creating their profiles, and answers 200 with the new subscriptions', async () => {
      const added = await t.call('POST', 'v1/object/teams/devs/subscription/', {
        recipients: ['alice', { distinct_id: 'bob', $email: ['bob@example.com'], name: 'Bob' }, { id: 'frontend', object_type: 'squads', lead: 'carol' }],
        properties: { role: 'developer' },
      });
      expect(added.status).toBe(200);
      const results = (added.body as { results: Json[] }).results;
      expect(results).toHaveLength(3);
      expect(results).toContainEqual(expect.objectContaining({ properties: { role: 'developer' }, user: expect.objectContaining({ distinct_id: 'alice' }), object: null }));
      expect(results).toContainEqual(
        expect.objectContaining({ user: null, object: expect.objectContaining({ id: 'frontend', object_type: 'squads', subscriptions_count: 0 }) }),
      );
      expect(await t.call('GET', 'v1/user/bob/')).toMatchObject({ status: 200, body: { properties: { name: 'Bob' }, $email: [{ value: 'bob@example.com' }] } });
      expect(await t.call('GET', 'v1/object/squads/frontend/')).toMatchObject({ status: 200, body: { properties: { lead: 'carol' } } });
      expect((await t.call('GET', 'v1/object/teams/devs/')).body).toMatchObject({ subscriptions_count: 3 });

      await expectEventually(async () =>
        expect(t.changes).toContainEqual({
          key: `${t.workspace.id}:teams:devs`,
          change: expect.objectContaining({ kind: 'object_subscriptions', object: { object_type: 'teams', id: 'devs' }, removed: [], properties: { role: 'developer' } }),
        }),
      );
      const announced = subscriptionChanges('devs').flatMap((c) => (c.kind === 'object_subscriptions' ? c.added : []));
      expect(announced).toEqual(
        expect.arrayContaining([
          { type: 'user', distinct_id: 'alice' },
          { type: 'user', distinct_id: 'bob' },
          { type: 'object', object_type: 'squads', id: 'frontend' },
        ]),
      );
    });

    it('replaces the relation properties when subscribing again', async () => {
      const again = await t.call('POST', 'v1/object/teams/devs/subscription/', { recipients: ['alice'], properties: { role: 'lead' } });
      expect(again).toMatchObject({ status: 200, body: { results: [{ properties: { role: 'lead' }, user: { distinct_id: 'alice' } }] } });
      expect((await t.call('GET', 'v1/object/teams/devs/')).body).toMatchObject({ subscriptions_count: 3 });
    });

    it('lists subscribers page by page, in both directions', async () => {
      const first = await t.call('GET', 'v1/object/teams/devs/subscription/?limit=2');
      expect(first.status).toBe(200);
      expect(page(first.body).meta).toMatchObject({ limit: 2, count: 3, has_prev: false, has_next: true });
      // Newest first by default: the second call re-subscribed alice but kept her subscription (and its place).
      expect(subscriberNames(first.body)).toEqual(['squads/frontend', 'bob']);
      const second = await t.call('GET', `v1/object/teams/devs/subscription/?limit=2&after=${page(first.body).meta.after}`);
      expect(subscriberNames(second.body)).toEqual(['alice']);
      expect(page(second.body).meta).toMatchObject({ has_prev: true, has_next: false });
      const back = await t.call('GET', `v1/object/teams/devs/subscription/?limit=2&before=${page(second.body).meta.before}`);
      expect(subscriberNames(back.body)).toEqual(['squads/frontend', 'bob']);
      expect(subscriberNames((await t.call('GET', 'v1/object/teams/devs/subscription/?sort=id')).body)).toEqual(['alice', 'bob', 'squads/frontend']);
      expect((await t.call('GET', 'v1/object/teams/devs/subscription/?limit=0')).status).toBe(400);
    });

    it('lists what a user and an object are subscribed to', async () => {
      await t.call('POST', 'v1/object/teams/ops/', { name: 'Operations' });
      await t.call('POST', 'v1/object/teams/ops/subscription/', { recipients: ['alice'] });
      const alice = await t.call('GET', 'v1/user/alice/subscribed_to/object/');
      expect(alice.status).toBe(200);
      expect(page(alice.body).meta).toMatchObject({ count: 2, has_next: false });
      expect(page(alice.body).results.map((r) => (r.object as Json).id)).toEqual(['ops', 'devs']);
      expect(page(alice.body).results[1]).toMatchObject({ properties: { role: 'lead' }, object: { object_type: 'teams', properties: { name: 'Developers' }, subscriptions_count: 3 } });
      const squad = await t.call('GET', 'v1/object/squads/frontend/subscribed_to/object/?limit=1');
      expect(page(squad.body).results).toEqual([expect.objectContaining({ object: expect.objectContaining({ object_type: 'teams', id: 'devs' }) })]);
      expect(await t.call('GET', 'v1/user/nobody/subscribed_to/object/')).toEqual({ status: 404, body: { code: 404, message: "user 'nobody' not found" } });
      expect(await t.call('GET', 'v1/object/teams/none/subscribed_to/object/')).toEqual({ status: 404, body: { code: 404, message: "object 'teams/none' not found" } });
    });

    it('removes subscribers named in the body or the recipients query with 204, announcing each removal', async () => {
      expect(await t.call('DELETE', 'v1/object/teams/devs/subscription/', { recipients: [{ id: 'frontend', object_type: 'squads' }, 'not-subscribed'] })).toEqual({ status: 204, body: '' });
      expect(await t.call('DELETE', 'v1/object/teams/devs/subscription/?recipients=bob')).toEqual({ status: 204, body: '' });
      expect(subscriberNames((await t.call('GET', 'v1/object/teams/devs/subscription/')).body)).toEqual(['alice']);
      await expectEventually(async () =>
        expect(subscriptionChanges('devs').flatMap((c) => (c.kind === 'object_subscriptions' ? c.removed : []))).toEqual([
          { type: 'object', object_type: 'squads', id: 'frontend' },
          { type: 'user', distinct_id: 'bob' },
        ]),
      );
    });

    it('answers 404 in the short shape when the object is missing, and 400 naming each bad recipient', async () => {
      const missing = { status: 404, body: { code: 404, message: "object 'teams/ghost' not found" } };
      expect(await t.call('POST', 'v1/object/teams/ghost/subscription/', { recipients: ['alice'] })).toEqual(missing);
      expect(await t.call('GET', 'v1/object/teams/ghost/subscription/')).toEqual(missing);
      expect(await t.call('DELETE', 'v1/object/teams/ghost/subscription/', { recipients: ['alice'] })).toEqual(missing);
      expect((await t.call('GET', 'v1/user/ghost/')).status).toBe(404);

      const bad = await t.call('POST', 'v1/object/teams/devs/subscription/', {
        recipients: ['', { id: 'devs', object_type: 'teams' }, { distinct_id: 'x', object_type: 'teams' }, 5],
        properties: [],
      });
      expect(bad.status).toBe(400);
      for (const path of ['recipients[0]', 'recipients[1]', 'recipients[2]', 'recipients[3]', 'properties']) expect((bad.body as Json).detail).toContain(path);
      expect((await t.call('POST', 'v1/object/teams/devs/subscription/', { recipients: Array.from({ length: 101 }, (_, i) => `u${i}`) })).status).toBe(400);
      expect((await t.call('DELETE', 'v1/object/teams/devs/subscription/')).status).toBe(400);
    });

    it('drops the subscriptions of a deleted object and announces them', async () => {
      await t.call('POST', 'v1/object/teams/doomed/', {});
      await t.call('POST', 'v1/object/teams/doomed/subscription/', { recipients: ['alice', 'dave'] });
      expect((await t.call('DELETE', 'v1/object/teams/doomed/')).status).toBe(204);
      expect(page((await t.call('GET', 'v1/user/alice/subscribed_to/object/')).body).results.map((r) => (r.object as Json).id)).toEqual(['ops', 'devs']);
      await expectEventually(async () =>
        expect(subscriptionChanges('doomed')).toContainEqual(expect.objectContaining({ added: [], removed: expect.arrayContaining([{ type: 'user', distinct_id: 'dave' }]) })),
      );
    });

    it('accepts the SDK signature', async () => {
      const signed = await t.signedCall('POST', 'v1/object/teams/devs/subscription/', JSON.stringify({ recipients: ['signed-user'] }));
      expect(signed.status).toBe(200);
      expect((await t.signedCall('GET', 'v1/object/teams/devs/subscription/?limit=5', undefined)).status).toBe(200);
    });
  });

  describe('lists of users, objects and tenants', () => {
    it('pages users by creation order', async () => {
      for (const id of ['list-1', 'list-2', 'list-3']) await t.call('POST', `v1/user/${id}/`, { name: id });
      const all = page((await t.call('GET', 'v1/user/?limit=1000')).body);
      const ids = all.results.map((r) => r.distinct_id);
      expect(all.meta.count).toBe(ids.length);
      expect(ids.slice(0, 3)).toEqual(['list-3', 'list-2', 'list-1']);
      const first = await t.call('GET', 'v1/user/?limit=2');
      expect(first.status).toBe(200);
      expect(page(first.body).results.map((r) => r.distinct_id)).toEqual(['list-3', 'list-2']);
      const next = page((await t.call('GET', `v1/user/?limit=2&after=${page(first.body).meta.after}`)).body);
      expect(next.results[0]).toMatchObject({ distinct_id: 'list-1', properties: { name: 'list-1' } });
      expect(next.meta.has_prev).toBe(true);
      expect(page((await t.call('GET', 'v1/user/', undefined, t.other)).body)).toMatchObject({ meta: { count: 0, has_next: false }, results: [] });
    });

    it('pages the objects of one type', async () => {
      const teams = page((await t.call('GET', 'v1/object/teams/?limit=2&sort=id')).body);
      expect(teams.results.map((r) => r.id)).toEqual(['devs', 'ops']);
      expect(teams.results[0]).toMatchObject({ object_type: 'teams', subscriptions_count: 2, properties: { name: 'Developers' } });
      expect(teams.meta).toMatchObject({ count: 2, has_next: false });
      expect(page((await t.call('GET', 'v1/object/squads/')).body).results.map((r) => r.id)).toEqual(['frontend']);
      expect(page((await t.call('GET', 'v1/object/nothing-here/')).body)).toMatchObject({ meta: { count: 0 }, results: [] });
    });

    it('pages tenants by offset', async () => {
      for (const id of ['t-1', 't-2', 't-3']) await t.call('POST', `v1/tenant/${id}/`, { tenant_name: id });
      const listed = await t.call('GET', 'v1/tenant/?limit=2&offset=1');
      expect(listed.status).toBe(200);
      expect(listed.body).toMatchObject({ meta: { count: 3, limit: 2, offset: 1 } });
      expect((listed.body as { results: Json[] }).results).toHaveLength(2);
      expect((await t.call('GET', 'v1/tenant/?limit=5000')).status).toBe(400);
    });
  });
});

import { expectEventually } from '@herald/testing';
import { runModeTargets } from '@herald/runtime';
import { AudienceTestApp, startAudienceTestApp } from './testing/audience-test-app';
import { SAMPLE_CATEGORIES } from './testing/sample-categories';

type Json = Record<string, unknown>;
const channelOf = (body: unknown, channel: string): Json | undefined =>
  ((body as Json).channels as Json[]).find((c) => c.channel === channel);

describe.each(runModeTargets())('preference-service ($name)', ({ database, bus }) => {
  let t: AudienceTestApp;

  beforeAll(async () => {
    t = await startAudienceTestApp(database, bus);
    await t.announceCategories(t.workspace, SAMPLE_CATEGORIES);
  });
  afterAll(() => t?.close());

  describe('authentication', () => {
    it('refuses a missing or unknown credential with 401 authentication_failed', async () => {
      const missing = await t.call('GET', 'v1/object/teams/x/', undefined, { ...t.workspace, apiKey: '' });
      expect(missing).toMatchObject({ status: 401, body: { code: 401, error_code: 'authentication_failed', type: 'AuthenticationFailed' } });
      const unknown = await t.call('GET', 'v1/object/teams/x/', undefined, { ...t.workspace, apiKey: 'hak_nope' });
      expect(unknown.status).toBe(401);
    });

    it('accepts the SDK signature', async () => {
      const created = await t.signedCall('POST', 'v1/object/teams/signed/', JSON.stringify({ name: 'Signed' }));
      expect(created.status).toBe(201);
      expect((await t.signedCall('GET', 'v1/object/teams/signed/', undefined)).status).toBe(200);
    });
  });

  describe('objects', () => {
    it('upserts, reads, edits and deletes an object for good (interface 4.4)', async () => {
      const created = await t.call('POST', 'v1/object/departments/engineering/', { name: 'Engineering', $email: ['devs@example.com'], $locale: 'en_GB' });
      expect(created).toMatchObject({
        status: 201,
        body: { object_type: 'departments', id: 'engineering', subscriptions_count: 0, properties: { name: 'Engineering', $locale: 'en_GB' }, $email: [{ value: 'devs@example.com', status: 'active' }] },
      });
      const edited = await t.call('PATCH', 'v1/object/departments/engineering/', {
        operations: [{ $set: { floor: 3 } }, { $append: { $email: ['lead@example.com'] } }, { $unset: ['name'] }, { $increment: { floor: 1 } }],
      });
      expect(edited.status).toBe(200);
      expect((edited.body as Json).properties).toEqual({ $locale: 'en_GB', floor: 4 });
      expect(((edited.body as Json).$email as Json[]).map((e) => e.value)).toEqual(['devs@example.com', 'lead@example.com']);

      expect((await t.call('GET', 'v1/object/departments/engineering/', undefined, t.other)).status).toBe(404);
      const deleted = await t.call('DELETE', 'v1/object/departments/engineering/');
      expect(deleted).toEqual({ status: 204, body: '' });
      const gone = await t.call('GET', 'v1/object/departments/engineering/');
      expect(gone).toEqual({ status: 404, body: { code: 404, message: "object 'departments/engineering' not found" } });
      expect(await t.call('DELETE', 'v1/object/departments/engineering/')).toEqual({ status: 404, body: { code: 404, message: "object 'departments/engineering' not found" } });
    });

    it('answers an invalid edit with 400 naming each failing path', async () => {
      await t.call('POST', 'v1/object/teams/a/', {});
      const bad = await t.call('PATCH', 'v1/object/teams/a/', { operations: [{ $set: { $email: [5] } }, { $nope: {} }] });
      expect(bad.status).toBe(400);
      expect((bad.body as Json).detail).toContain('operations[0].$set.$email[0]');
      expect((bad.body as Json).detail).toContain('operations[1].$nope');
    });

    it('announces every change keyed by the object', async () => {
      await t.call('POST', 'v1/object/teams/announced/', { name: 'A' });
      await expectEventually(async () =>
        expect(t.changes).toContainEqual({
          key: `${t.workspace.id}:teams:announced`,
          change: expect.objectContaining({ kind: 'profile', change: 'upserted', subject: { type: 'object', object_type: 'teams', id: 'announced' } }),
        }),
      );
    });
  });

  describe('object preferences', () => {
    beforeAll(async () => {
      await t.call('POST', 'v1/object/teams/prefs/', { name: 'Prefs' });
    });

    it('updates one category and answers 202 with the record of 2.6 (interface 4.1)', async () => {
      const updated = await t.call('PATCH', 'v1/object/teams/prefs/preference/category/status-updates/', {
        preference: 'opt_in',
        opt_out_channels: ['email', 'slack'],
        digest_schedule: { id: 'daily', time: '18:30' },
        properties: [{ key: 'threshold', value: 25 }],
      });
      expect(updated.status).toBe(202);
      expect(updated.body).toMatchObject({
        name: 'Status updates',
        category: 'status-updates',
        original_preference: 'opt_in',
        preference: 'opt_in',
        is_editable: true,
        digest_schedule: { id: 'daily', time: '18:30', is_user_selected: true },
      });
      expect(channelOf(updated.body, 'email')).toEqual({ channel: 'email', preference: 'opt_out', is_editable: true });
      expect(channelOf(updated.body, 'sms')).toEqual({ channel: 'sms', preference: 'opt_in', is_editable: true });
      expect((updated.body as Json).properties).toContainEqual(expect.objectContaining({ key: 'threshold', is_overridden: true, value: 25 }));

      // Opting a channel back in moves it out of the opt-out list; a null schedule falls back to the default.
      const again = await t.call('PATCH', 'v1/object/teams/prefs/preference/category/status-updates/', { opt_in_channels: ['email'], digest_schedule: null });
      expect(channelOf(again.body, 'email')).toMatchObject({ preference: 'opt_in' });
      expect(channelOf(again.body, 'slack')).toMatchObject({ preference: 'opt_out' });
      expect((again.body as Json).digest_schedule).toMatchObject({ id: 'instant', is_default: true, is_user_selected: false });
    });

    it('answers 404 in the short shape naming a missing category or object', async () => {
      expect(await t.call('PATCH', 'v1/object/teams/prefs/preference/category/nope/', { preference: 'opt_out' })).toEqual({
        status: 404,
        body: { code: 404, message: "category 'nope' not found" },
      });
      expect(await t.call('PATCH', 'v1/object/teams/missing/preference/category/newsletter/', { preference: 'opt_in' })).toEqual({
        status: 404,
        body: { code: 404, message: "object 'teams/missing' not found" },
      });
    });

    it('refuses overrides of locked properties, wrong value types and opting out of what cannot be unsubscribed', async () => {
      const bad = await t.call('PATCH', 'v1/object/teams/prefs/preference/category/status-updates/', {
        properties: [
          { key: 'region', value: 'us' },
          { key: 'threshold', value: 'high' },
        ],
      });
      expect(bad.status).toBe(400);
      expect((bad.body as Json).detail).toEqual(expect.stringContaining('properties[0].key'));
      expect((bad.body as Json).detail).toEqual(expect.stringContaining('properties[1].value'));
      // A body of the wrong shape is refused before the category is read: the schema's 400.
      const unknownChannel = await t.call('PATCH', 'v1/object/teams/prefs/preference/category/status-updates/', { opt_out_channels: ['fax'] });
      expect(unknownChannel.status).toBe(400);
      expect((unknownChannel.body as Json).detail).toEqual(expect.stringContaining('opt_out_channels[0]'));
      const mandatory = await t.call('PATCH', 'v1/object/teams/prefs/preference/category/security-alerts/', { preference: 'opt_out', opt_out_channels: ['email'] });
      expect(mandatory.status).toBe(400);
      const record = await t.call('GET', 'v1/object/teams/prefs/preference/category/security-alerts/');
      expect(record.body).toMatchObject({ is_editable: false, preference: 'opt_in' });
      expect(channelOf(record.body, 'email')).toEqual({ channel: 'email', preference: 'opt_in', is_editable: false });
    });

    it('restricts channels and answers 202 with every channel (interface 4.2)', async () => {
      const updated = await t.call('PATCH', 'v1/object/teams/prefs/preference/channel_preference/', { channel_preferences: [{ channel: 'email', is_restricted: true }] });
      expect(updated.status).toBe(202);
      expect((updated.body as Json).channel_preferences).toContainEqual({ channel: 'email', is_restricted: true });
      expect((updated.body as Json).channel_preferences).toContainEqual({ channel: 'sms', is_restricted: false });
      expect(await t.call('PATCH', 'v1/object/teams/missing/preference/channel_preference/', { channel_preferences: [] })).toEqual({
        status: 404,
        body: { code: 404, message: "object 'teams/missing' not found" },
      });
      const full = await t.call('GET', 'v1/object/teams/prefs/preference/');
      expect(full.status).toBe(200);
      expect((full.body as Json).channel_preferences).toContainEqual({ channel: 'email', is_restricted: true });
      expect(((full.body as Json).sections as Json[]).map((s) => s.name)).toEqual(['Security', 'Updates', 'Marketing']);
    });

    it('keeps per-tenant choices apart from the global ones (tenant_id)', async () => {
      await t.call('POST', 'v1/tenant/acme/', { tenant_name: 'Acme' });
      const inTenant = await t.call('PATCH', 'v1/object/teams/prefs/preference/category/newsletter/?tenant_id=acme', { preference: 'opt_in' });
      expect(inTenant.body).toMatchObject({ original_preference: 'opt_out', preference: 'opt_in' });
      expect((await t.call('GET', 'v1/object/teams/prefs/preference/category/newsletter/')).body).toMatchObject({ preference: 'opt_out' });
    });
  });

  describe('tenants and user preferences', () => {
    it('applies tenant defaults and blocked channels under the user', async () => {
      await t.call('POST', 'v1/user/u-1/', { $email: ['u1@example.com'] });
      const tenant = await t.call('POST', 'v1/tenant/globex/', { tenant_name: 'Globex', blocked_channels: ['sms'] });
      expect(tenant).toMatchObject({ status: 201, body: { tenant_id: 'globex', tenant_name: 'Globex', blocked_channels: ['sms'] } });
      const defaults = await t.call('PATCH', 'v1/tenant/globex/category/status-updates/', { preference: 'opt_out' });
      expect(defaults).toMatchObject({ status: 202, body: { category: 'status-updates', preference: 'opt_out', root_category: 'transactional', blocked_channels: ['sms'] } });

      const record = await t.call('GET', 'v1/user/u-1/preference/category/status-updates/?tenant_id=globex');
      expect(record.body).toMatchObject({ original_preference: 'opt_out', preference: 'opt_out' });
      expect(channelOf(record.body, 'sms')).toEqual({ channel: 'sms', preference: 'opt_out', is_editable: false });
      const chosen = await t.call('PATCH', 'v1/user/u-1/preference/category/status-updates/?tenant_id=globex', { preference: 'opt_in' });
      expect(chosen.body).toMatchObject({ preference: 'opt_in' });
      expect(await t.call('PATCH', 'v1/tenant/nobody/category/status-updates/', { preference: 'opt_out' })).toEqual({ status: 404, body: { code: 404, message: "tenant 'nobody' not found" } });
      expect((await t.call('DELETE', 'v1/tenant/globex/')).status).toBe(204);
      expect((await t.call('GET', 'v1/tenant/globex/')).status).toBe(404);
    });

    it('upserts, edits and deletes users', async () => {
      expect((await t.call('POST', 'v1/user/u-2/', { name: 'Two' })).status).toBe(201);
      const edited = await t.call('PATCH', 'v1/user/u-2/', { operations: [{ $set_once: { name: 'Ignored', plan: 'pro' } }] });
      expect(edited).toMatchObject({ status: 202, body: { distinct_id: 'u-2', properties: { name: 'Two', plan: 'pro' } } });
      expect((await t.call('DELETE', 'v1/user/u-2/')).status).toBe(204);
      expect(await t.call('GET', 'v1/user/u-2/')).toEqual({ status: 404, body: { code: 404, message: "user 'u-2' not found" } });
    });

    it('applies inline profiles of triggers, per tenant merged over the global profile', async () => {
      const base = { kind: 'inline_profile' as const, workspace_slug: 'staging', subject: { type: 'user' as const, distinct_id: 'inline-1' }, source_message_id: 'm' };
      await t.publishAudience(t.workspace, `${t.workspace.id}:inline-1`, { ...base, channels: { email: ['g@example.com'] }, properties: { plan: 'free' }, locale: 'en' });
      await t.publishAudience(t.workspace, `${t.workspace.id}:inline-1`, { ...base, tenant_id: 'acme', channels: { sms: ['+15550100'] }, properties: { plan: 'team' } });
      await expectEventually(async () => {
        const merged = await t.call('GET', 'v1/user/inline-1/?tenant_id=acme');
        expect(merged.body).toMatchObject({ properties: { plan: 'team', $locale: 'en' }, $email: [{ value: 'g@example.com' }], $sms: [{ value: '+15550100' }] });
      });
      const global = await t.call('GET', 'v1/user/inline-1/');
      expect(global.body).toMatchObject({ properties: { plan: 'free' } });
      expect((global.body as Json).$sms).toBeUndefined();
    });
  });

  describe('subscriber lists', () => {
    it('creates a list, adds and removes members, pages them and deletes it', async () => {
      const created = await t.call('POST', 'v1/subscriber_list/', { list_id: 'beta', list_name: 'Beta testers' });
      expect(created).toMatchObject({ status: 201, body: { list_id: 'beta', list_name: 'Beta testers', list_type: 'static_list', subscribers_count: 0 } });
      const ids = Array.from({ length: 7 }, (_, i) => `user-${i}`);
      expect(await t.call('POST', 'v1/subscriber_list/beta/subscriber/add/', { distinct_ids: ids })).toEqual({ status: 201, body: { success: true, affected_count: 7 } });
      expect(await t.call('POST', 'v1/subscriber_list/beta/subscriber/add/', { distinct_ids: ['user-0'] })).toEqual({ status: 201, body: { success: true, affected_count: 0 } });

      const first = await t.call('GET', 'v1/subscriber_list/beta/subscriber/?limit=3');
      const page = first.body as { meta: Json; results: Json[] };
      expect(page.results.map((r) => r.distinct_id)).toEqual(['user-6', 'user-5', 'user-4']);
      expect(page.meta).toMatchObject({ limit: 3, count: 7, has_prev: false, has_next: true });
      const second = (await t.call('GET', `v1/subscriber_list/beta/subscriber/?limit=3&after=${page.meta.after}`)).body as { meta: Json; results: Json[] };
      expect(second.results.map((r) => r.distinct_id)).toEqual(['user-3', 'user-2', 'user-1']);
      expect(second.meta).toMatchObject({ has_prev: true, has_next: true });
      const back = (await t.call('GET', `v1/subscriber_list/beta/subscriber/?limit=3&before=${second.meta.before}`)).body as { results: Json[] };
      expect(back.results.map((r) => r.distinct_id)).toEqual(['user-6', 'user-5', 'user-4']);
      const ascending = (await t.call('GET', 'v1/subscriber_list/beta/subscriber/?sort=id&limit=2')).body as { results: Json[] };
      expect(ascending.results.map((r) => r.distinct_id)).toEqual(['user-0', 'user-1']);

      expect(await t.call('POST', 'v1/subscriber_list/beta/subscriber/remove/', { distinct_ids: ['user-1', 'nobody'] })).toEqual({ status: 201, body: { success: true, affected_count: 1 } });
      expect((await t.call('GET', 'v1/subscriber_list/beta/')).body).toMatchObject({ subscribers_count: 6 });
      expect((await t.call('GET', 'v1/subscriber_list/beta/subscriber/?sort=up')).status).toBe(400);
      expect(await t.call('PATCH', 'v1/subscriber_list/beta/delete/')).toEqual({ status: 200, body: { success: true } });
    });

    it('answers 404 in the extended shape for a missing list (interface 4.3)', async () => {
      expect(await t.call('GET', 'v1/subscriber_list/nope/subscriber/')).toEqual({
        status: 404,
        body: { code: 404, error_code: 'not_found', type: 'NotFound', message: 'list_id: nope not found', detail: 'list_id: nope not found' },
      });
      expect((await t.call('GET', 'v1/subscriber_list/nope/subscriber/', undefined, t.other)).status).toBe(404);
    });
  });
});

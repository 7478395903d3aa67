import { createHash } from 'node:crypto';
import { Channel, DefinitionChanged } from '@herald/contracts';
import { databaseTargets, expectEventually } from '@herald/testing';
import { INVALID_SERVICE_TOKEN, ManagementTestApp, startManagementTestApp } from '../testing/management-test-app';

type Json = Record<string, unknown>;
interface Response {
  status: number;
  body: Json;
}
interface LiveDocument extends Json {
  version_no: number;
  variants: Array<Json & { channel: string; id: string; content: Json; approval_status: string; action: string | null }>;
}

const T = 'v2/staging/template';
const variantPath = (slug: string, channel: string, id: string, suffix = ''): string => `${T}/${slug}/channel/${channel}/variant/${id}/${suffix}`;

/** One valid content per channel; Handlebars placeholders are stored as written. */
const VALID: Record<Channel, Json> = {
  email: { subject: 'Order #{{order.number}} confirmed', html: '<p>Hi {{customer.name}}</p>', text: 'Hi {{customer.name}}', from: 'shop@example.com' },
  sms: { text: 'Order {{order.number}} confirmed' },
  whatsapp: { template_name: 'order_confirmed', language: 'en', parameters: ['{{order.number}}'] },
  androidpush: { title: 'Order', body: 'Confirmed #{{order.number}}', data: { order: '{{order.number}}' } },
  iospush: { title: 'Order', body: 'Confirmed', deep_link: 'app://orders/{{order.number}}' },
  webpush: { title: 'Order', body: 'Confirmed', url: 'https://example.com/o/{{order.number}}' },
  slack: { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Order* {{order.number}}' } }] },
  ms_teams: { card: { type: 'AdaptiveCard', version: '1.4', body: [] } },
  inbox: { body: 'Order {{order.number}} confirmed', action_url: 'https://example.com/orders' },
};

/** One failing content per channel: [channel, content, path within content, message]. */
const INVALID: Array<[Channel, Json, string, string]> = [
  ['email', { subject: 'Hello' }, 'html', 'html or mjml or text is required'],
  ['sms', { text: 7 }, 'text', 'must be a string'],
  ['whatsapp', { template_name: 'order_confirmed' }, 'language', 'is required'],
  ['androidpush', { title: 'T', body: 'B', data: { count: 1 } }, 'data.count', 'must be a string'],
  ['iospush', { title: ' ', body: 'B' }, 'title', 'must not be empty'],
  ['webpush', { title: 'T', body: 'B', icons: 'x' }, 'icons', 'is not a field of webpush content'],
  ['slack', { blocks: 'not blocks' }, 'blocks', 'must be an array of objects'],
  ['ms_teams', {}, 'text', 'text or card is required'],
  ['inbox', { title: 'only a title' }, 'body', 'is required'],
];

describe.each(databaseTargets())('management API: templates and variants ($kind)', (target) => {
  let t: ManagementTestApp;
  let otherToken: string;

  function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
    return t.sql<T>(text, params);
  }

  /** Every response is checked against the OpenAPI description by the fixture. */
  async function call(method: string, path: string, body?: unknown, bearer = t.token): Promise<Response> {
    return (await t.call(method, path, body, bearer)) as Response;
  }

  const detailOf = (response: Response): string => (response.body as { detail: string }).detail;

  /** Announcements of one template, once everything committed so far has left the outbox. */
  async function announcementsOf(slug: string): Promise<DefinitionChanged[]> {
    await expectEventually(async () => expect(await sql(`SELECT id FROM management.outbox`)).toEqual([]));
    return t.definitions.filter((p) => p.kind === 'template' && p.id === slug);
  }

  async function expectOneMoreAnnouncement(slug: string, before: number): Promise<DefinitionChanged> {
    const all = await expectEventually(async () => {
      const found = await announcementsOf(slug);
      expect(found.length).toBeGreaterThan(before);
      return found;
    });
    expect(all).toHaveLength(before + 1);
    return all[before];
  }

  beforeAll(async () => {
    t = await startManagementTestApp(target);
    ({ otherToken } = t);
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('authentication', () => {
    it.each([
      ['GET', `${T}/`],
      ['GET', `${T}/order-confirmed/`],
      ['POST', `${T}/order-confirmed/`],
      ['GET', `${T}/order-confirmed/variant/`],
      ['GET', `${T}/order-confirmed/channel/email/variant/`],
      ['GET', variantPath('order-confirmed', 'email', 'default')],
      ['POST', variantPath('order-confirmed', 'email', 'default')],
      ['DELETE', variantPath('order-confirmed', 'email', 'default')],
      ['PATCH', `${T}/order-confirmed/commit/`],
      ['PATCH', variantPath('order-confirmed', 'sms', 'default', 'discard/')],
      ['PATCH', variantPath('order-confirmed', 'sms', 'default', 'vendor_approval/')],
    ])('refuses %s /%s with a wrong token (401 authentication_failed)', async (method, path) => {
      const response = await call(method, path, ['POST', 'PATCH'].includes(method) ? {} : undefined, 'wrong');
      expect(response).toEqual(INVALID_SERVICE_TOKEN);
    });
  });

  describe('templates', () => {
    it('creates a template (200) as a draft', async () => {
      const response = await call('POST', `${T}/order-confirmed/`, {
        name: 'Order Confirmed',
        description: 'Sent when an order is placed',
        tags: ['transactional'],
        enabled_channels: ['email', 'sms'],
      });
      expect(response).toEqual({
        status: 200,
        body: {
          $schema: 'https://schema.suprsend.com/template/v2/schema.json',
          slug: 'order-confirmed',
          created_at: expect.any(String),
          last_triggered_at: null,
          name: 'Order Confirmed',
          description: 'Sent when an order is placed',
          tags: ['transactional'],
          enabled_channels: ['email', 'sms'],
          strict: false,
          status: 'draft',
          version_no: null,
          hash: expect.stringMatching(/^[0-9a-f]{64}$/),
          commit_message: null,
          active_at: null,
          updated_at: expect.any(String),
          updated_by: null,
          channels: [
            { channel: 'email', is_active: false, variants_count: 0 },
            { channel: 'sms', is_active: false, variants_count: 0 },
          ],
        },
      });
    });

    it('updates the draft metadata with the same POST, keeping what the body leaves out', async () => {
      const renamed = await call('POST', `${T}/order-confirmed/`, { name: 'Order confirmed' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ name: 'Order confirmed', description: 'Sent when an order is placed', tags: ['transactional'] });
      const cleared = await call('POST', `${T}/order-confirmed/`, { name: 'Order confirmed', description: null });
      expect(cleared.body).toMatchObject({ description: null, enabled_channels: ['email', 'sms'] });
      expect((await call('GET', `${T}/order-confirmed/`)).body).toMatchObject({ name: 'Order confirmed', description: null, status: 'draft' });
    });

    it('sets strict rendering, keeps it when an update leaves it out, and counts it in the hash', async () => {
      const lenient = await call('POST', `${T}/order-confirmed/`, { name: 'Order confirmed' });
      const strict = await call('POST', `${T}/order-confirmed/`, { name: 'Order confirmed', strict: true });
      expect(strict.body).toMatchObject({ strict: true });
      expect((strict.body as { hash: string }).hash).not.toBe((lenient.body as { hash: string }).hash);
      expect((await call('POST', `${T}/order-confirmed/`, { name: 'Order confirmed' })).body).toMatchObject({ strict: true });
      const back = await call('POST', `${T}/order-confirmed/`, { name: 'Order confirmed', strict: false });
      expect(back.body).toMatchObject({ strict: false, hash: (lenient.body as { hash: string }).hash });
    });

    it('lists templates with limit/offset and q, and only committed ones in live mode', async () => {
      await call('POST', `${T}/password-reset/`, { name: 'Password reset' });
      const list = await call('GET', `${T}/`);
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({
        meta: { count: 2, limit: 20, offset: 0 },
        results: [{ slug: 'password-reset' }, { slug: 'order-confirmed' }],
      });
      expect((await call('GET', `${T}/?limit=1&offset=1`)).body).toMatchObject({
        meta: { count: 2, limit: 1, offset: 1 },
        results: [{ slug: 'order-confirmed' }],
      });
      expect((await call('GET', `${T}/?q=PASSWORD`)).body).toMatchObject({ meta: { count: 1 }, results: [{ slug: 'password-reset' }] });
      expect((await call('GET', `${T}/?q=%25`)).body).toMatchObject({ meta: { count: 0 } });
      expect((await call('GET', `${T}/?mode=live`)).body).toEqual({ meta: { count: 0, limit: 20, offset: 0 }, results: [] });
    });

    it('answers 404 for an unknown workspace or template, and for the live version of an uncommitted one', async () => {
      expect(await call('GET', 'v2/nowhere/template/')).toEqual({
        status: 404,
        body: {
          code: 404,
          error_code: 'not_found',
          type: 'NotFound',
          message: "workspace 'nowhere' not found",
          detail: "workspace 'nowhere' not found",
        },
      });
      expect(await call('GET', `${T}/missing/`)).toEqual({
        status: 404,
        body: {
          code: 404,
          error_code: 'not_found',
          type: 'NotFound',
          message: "template (slug: 'missing') not found",
          detail: "template (slug: 'missing') not found",
        },
      });
      const live = await call('GET', `${T}/order-confirmed/?mode=live`);
      expect(live.status).toBe(404);
      expect(live.body.message).toBe("template (slug: 'order-confirmed') has no live version; commit it first");
    });

    it('reports every invalid field of a template by its path (400), and creates nothing', async () => {
      const response = await call('POST', `${T}/bad-template/`, { name: '', tags: ['ok', 7], enabled_channels: ['fax', 'email', 'email'], strict: 'yes' });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 400, error_code: 'validation_error', type: 'ValidationError' });
      for (const path of ['name', 'tags[1]', 'enabled_channels[0]', 'enabled_channels', 'strict']) expect(detailOf(response)).toContain(`${path}:`);
      expect((await call('GET', `${T}/bad-template/`)).status).toBe(404);

      const badSlug = await call('POST', `${T}/Bad.Slug/`, { name: 'x' });
      expect(badSlug.status).toBe(400);
      expect(detailOf(badSlug)).toBe('template_slug: must match ^[a-z0-9-_]{1,120}$');
      expect(detailOf(await call('GET', `${T}/?mode=both&limit=0`))).toBe('limit: must be an integer from 1 to 1000');
      expect(detailOf(await call('GET', `${T}/?mode=both`))).toBe('mode: must be draft or live');
    });
  });

  describe('variants', () => {
    it('creates a variant (200) answering with its content, a content hash and no errors', async () => {
      const response = await call('POST', variantPath('order-confirmed', 'email', 'default'), {
        locale: 'en',
        tenant_id: null,
        conditions: [],
        content: VALID.email,
      });
      expect(response).toEqual({
        status: 200,
        body: {
          $schema: 'https://schema.suprsend.com/template/v2/variant_schema.json',
          channel: 'email',
          id: 'default',
          tenant_id: null,
          locale: 'en',
          conditions: [],
          hash: expect.stringMatching(/^[0-9a-f]{64}$/),
          needs_vendor_approval: false,
          sysgen_template_name: null,
          approval_status: 'auto_approved',
          discard_comment: null,
          approval_at: null,
          has_error: false,
          seq_no: 1,
          action: null,
          created_at: expect.any(String),
          content: VALID.email,
          errors: {},
          vendor_approvals: [],
        },
      });
    });

    it('hashes the canonical JSON of the content, whatever the key order', async () => {
      const content = { text: 'Hi', subject: 'S' };
      const first = await call('POST', variantPath('password-reset', 'email', 'default'), { locale: 'en', content });
      const second = await call('POST', variantPath('password-reset', 'email', 'default'), { locale: 'en', content: { subject: 'S', text: 'Hi' } });
      const expected = createHash('sha256').update('{"subject":"S","text":"Hi"}').digest('hex');
      expect(first.body.hash).toBe(expected);
      expect(second.body.hash).toBe(expected);
      const changed = await call('POST', variantPath('password-reset', 'email', 'default'), { locale: 'en', content: { subject: 'S', text: 'Bye' } });
      expect(changed.body.hash).not.toBe(expected);
    });

    it('numbers variants within channel + tenant + locale, and refuses a taken seq_no (409)', async () => {
      const formal = await call('POST', variantPath('order-confirmed', 'email', 'formal'), {
        locale: 'en',
        conditions: [
          {
            type: 'expression_v1',
            expression_v1: { op: 'AND', args: [{ variable_ns: '$recipient', variable: 'tone', op: '==', value: 'formal' }] },
          },
        ],
        content: VALID.email,
      });
      expect(formal.body).toMatchObject({ seq_no: 2, conditions: [{ type: 'expression_v1' }] });
      const spanish = await call('POST', variantPath('order-confirmed', 'email', 'spanish'), { locale: 'es', content: VALID.email });
      expect(spanish.body).toMatchObject({ seq_no: 1, locale: 'es' });
      const tenant = await call('POST', variantPath('order-confirmed', 'email', 'acme'), { locale: 'en', tenant_id: 'acme', content: VALID.email });
      expect(tenant.body).toMatchObject({ seq_no: 1, tenant_id: 'acme' });

      const taken = await call('POST', variantPath('order-confirmed', 'email', 'another'), { locale: 'en', seq_no: 1, content: VALID.email });
      expect(taken).toEqual({
        status: 409,
        body: {
          code: 409,
          error_code: 'conflict',
          type: 'ConflictError',
          message: "seq_no 1 is taken by variant 'default' of email (tenant default, locale en)",
          detail: "seq_no 1 is taken by variant 'default' of email (tenant default, locale en)",
        },
      });
      // Updating a variant keeps its place unless told otherwise.
      const again = await call('POST', variantPath('order-confirmed', 'email', 'formal'), { locale: 'en', content: VALID.email });
      expect(again.body).toMatchObject({ seq_no: 2, conditions: [] });
      // "seq_no": null is left out too (it was a 500: null went to a NOT NULL column).
      const withNull = await call('POST', variantPath('order-confirmed', 'email', 'formal'), { locale: 'en', seq_no: null, content: VALID.email });
      expect(withNull).toMatchObject({ status: 200, body: { seq_no: 2 } });
      expect((await call('DELETE', variantPath('order-confirmed', 'email', 'acme'))).status).toBe(204);
    });

    it('marks sms and whatsapp variants as needing vendor approval, with a system-generated name', async () => {
      const sms = await call('POST', variantPath('order-confirmed', 'sms', 'default'), { locale: 'en', content: VALID.sms });
      expect(sms.body).toMatchObject({
        needs_vendor_approval: true,
        sysgen_template_name: 'order_confirmed_sms_default_en',
        approval_status: 'pending',
        approval_at: null,
        vendor_approvals: [],
      });
      const refused = await call('POST', variantPath('order-confirmed', 'email', 'x'), { locale: 'en', needs_vendor_approval: true, content: VALID.email });
      expect(detailOf(refused)).toBe('needs_vendor_approval: only sms and whatsapp variants can need vendor approval');
      const whatsapp = await call('POST', variantPath('order-confirmed', 'whatsapp', 'x'), {
        locale: 'en',
        needs_vendor_approval: false,
        content: VALID.whatsapp,
      });
      expect(detailOf(whatsapp)).toBe('needs_vendor_approval: whatsapp variants always need vendor approval');
    });

    it('lists variants in channel, tenant, locale and seq_no order, without content or vendor approvals', async () => {
      const all = await call('GET', `${T}/order-confirmed/variant/`);
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({
        meta: { count: 4, limit: 20, offset: 0 },
        results: [
          { channel: 'email', id: 'default', seq_no: 1 },
          { channel: 'email', id: 'formal', seq_no: 2 },
          { channel: 'email', id: 'spanish', locale: 'es' },
          { channel: 'sms', id: 'default' },
        ],
      });
      for (const variant of (all.body as { results: Json[] }).results) {
        expect(variant).not.toHaveProperty('content');
        expect(variant).not.toHaveProperty('vendor_approvals');
        expect(variant).not.toHaveProperty('errors');
      }
      const email = await call('GET', `${T}/order-confirmed/channel/email/variant/?limit=1&offset=1`);
      expect(email.body).toEqual({ meta: { count: 3, limit: 1, offset: 1 }, results: [expect.objectContaining({ id: 'formal' })] });
      expect((email.body as { results: Json[] }).results[0]).not.toHaveProperty('content');
    });

    it('enables the channel of a variant added to a channel the template does not list', async () => {
      expect((await call('POST', variantPath('password-reset', 'inbox', 'default'), { locale: 'en', content: VALID.inbox })).status).toBe(200);
      expect((await call('GET', `${T}/password-reset/`)).body).toMatchObject({
        enabled_channels: ['email', 'inbox'],
        channels: [
          { channel: 'email', is_active: false, variants_count: 1 },
          { channel: 'inbox', is_active: false, variants_count: 1 },
        ],
      });
    });

    it('reports every invalid field of a variant by its path (400)', async () => {
      const response = await call('POST', variantPath('order-confirmed', 'email', 'bad'), {
        tenant_id: 5,
        seq_no: 0,
        conditions: [{ type: 'expression_v2', expression_v1: { op: 'XOR', args: [{ op: '~', variable: '' }] } }],
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error_code: 'validation_error', type: 'ValidationError' });
      for (const path of [
        'locale',
        'tenant_id',
        'conditions[0].type',
        'conditions[0].expression_v1.op',
        'conditions[0].expression_v1.args[0].variable',
        'conditions[0].expression_v1.args[0].op',
        'content',
        'seq_no',
      ]) {
        expect(detailOf(response)).toContain(`${path}:`);
      }
      expect(detailOf(await call('POST', variantPath('order-confirmed', 'email', 'bad.id'), { locale: 'en', content: VALID.email }))).toBe(
        'variant_id: must match ^[A-Za-z0-9_-]{1,64}$',
      );
      expect((await call('GET', `${T}/order-confirmed/channel/email/variant/bad/`)).status).toBe(404);
    });

    it('answers 404 for an unknown template, channel or variant', async () => {
      expect((await call('GET', `${T}/missing/variant/`)).body).toMatchObject({ code: 404, message: "template (slug: 'missing') not found" });
      expect((await call('POST', variantPath('missing', 'email', 'default'), { locale: 'en', content: VALID.email })).status).toBe(404);
      expect((await call('GET', `${T}/order-confirmed/channel/fax/variant/`)).body).toMatchObject({ code: 404, error_code: 'not_found' });
      expect(await call('GET', variantPath('order-confirmed', 'email', 'nope'))).toEqual({
        status: 404,
        body: {
          code: 404,
          error_code: 'not_found',
          type: 'NotFound',
          message: "variant 'nope' of channel 'email' not found in the draft version of template 'order-confirmed'",
          detail: "variant 'nope' of channel 'email' not found in the draft version of template 'order-confirmed'",
        },
      });
      expect((await call('GET', `${variantPath('order-confirmed', 'email', 'default')}?mode=live`)).status).toBe(404);
      expect((await call('DELETE', variantPath('order-confirmed', 'email', 'nope'))).status).toBe(404);
    });
  });

  describe('content per channel', () => {
    beforeAll(async () => {
      await call('POST', `${T}/broken/`, { name: 'Broken' });
      await call('POST', `${T}/all-channels/`, { name: 'All channels' });
    });

    it.each(INVALID)('saves invalid %s content as a draft with has_error and the failing path', async (channel, content, path, message) => {
      const response = await call('POST', variantPath('broken', channel, 'bad'), { locale: 'en', content });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ has_error: true, errors: { [path]: [message] }, content });
    });

    it.each(Object.entries(VALID))('accepts valid %s content', async (channel, content) => {
      const response = await call('POST', variantPath('all-channels', channel, 'default'), { locale: 'en', content });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ has_error: false, errors: {}, content });
    });

    it('refuses to commit while any variant has errors, naming every failing path (400), and nothing goes live', async () => {
      const list = await call('GET', `${T}/broken/variant/`);
      expect((list.body as { results: Json[] }).results.map((v) => v.has_error)).toEqual(INVALID.map(() => true));
      const response = await call('PATCH', `${T}/broken/commit/`, {});
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        code: 400,
        error_code: 'validation_error',
        type: 'ValidationError',
        message: 'one or more variants about to be committed have issues',
      });
      for (const [channel, , path, message] of INVALID) {
        expect(detailOf(response)).toContain(`variants[${channel}:bad].content.${path}: ${message}`);
      }
      expect((await call('GET', `${T}/broken/?mode=live`)).status).toBe(404);
      expect(await announcementsOf('broken')).toEqual([]);
    });

    it('refuses to commit an enabled channel without a variant', async () => {
      await call('POST', `${T}/no-variants/`, { name: 'No variants', enabled_channels: ['webpush'] });
      const response = await call('PATCH', `${T}/no-variants/commit/`, {});
      expect(response.status).toBe(400);
      expect(detailOf(response)).toBe('enabled_channels[0]: channel webpush has no variant');
    });

    it('commits all nine channels once every content is valid', async () => {
      const response = await call('PATCH', `${T}/all-channels/commit/`, {});
      expect(response.status).toBe(200);
      expect((response.body as { channels: Json[] }).channels).toHaveLength(9);
    });
  });

  describe('draft and live', () => {
    let firstLiveHash: string;

    it('commits the draft (200): a new version, Added variants, and exactly one definition.changed with the live document', async () => {
      expect(await announcementsOf('order-confirmed')).toEqual([]);
      const response = await call('PATCH', `${T}/order-confirmed/commit/?commit_message=First%20version`, {});
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        slug: 'order-confirmed',
        status: 'active',
        version_no: 1,
        commit_message: 'First version',
        active_at: expect.any(String),
        enabled_channels: ['email', 'sms'],
        channels: [
          { channel: 'email', is_active: true, variants_count: 3 },
          { channel: 'sms', is_active: true, variants_count: 1 },
        ],
      });
      firstLiveHash = response.body.hash as string;
      expect(firstLiveHash).toBe((await call('GET', `${T}/order-confirmed/`)).body.hash);

      const announced = await expectOneMoreAnnouncement('order-confirmed', 0);
      expect(announced).toMatchObject({ kind: 'template', change: 'committed', workspace_slug: 'staging', id: 'order-confirmed' });
      const document = announced.document as LiveDocument;
      expect(document).toMatchObject({ slug: 'order-confirmed', version_no: 1, hash: firstLiveHash, enabled_channels: ['email', 'sms'] });
      expect(document.variants.map((v) => [v.channel, v.id, v.action])).toEqual([
        ['email', 'default', 'Added'],
        ['email', 'formal', 'Added'],
        ['email', 'spanish', 'Added'],
        ['sms', 'default', 'Added'],
      ]);
      expect(document.variants[0].content).toEqual(VALID.email);
      expect(document.variants[3]).toMatchObject({ content: VALID.sms, approval_status: 'pending', vendor_approvals: [] });
      expect(document.variants[0]).toMatchObject({ approval_status: 'auto_approved', approval_at: expect.any(String) });
    });

    it('lists the committed template in live mode, and its live variants with their actions', async () => {
      expect((await call('GET', `${T}/?mode=live`)).body).toMatchObject({ meta: { count: 2 } });
      const live = await call('GET', `${T}/order-confirmed/variant/?mode=live`);
      expect((live.body as { results: Json[] }).results.map((v) => v.action)).toEqual(['Added', 'Added', 'Added', 'Added']);
    });

    it('keeps edits in the draft until the next commit', async () => {
      const changed = { ...VALID.email, subject: 'Your order #{{order.number}} is confirmed' };
      await call('POST', variantPath('order-confirmed', 'email', 'default'), { locale: 'en', content: changed });
      await call('DELETE', variantPath('order-confirmed', 'email', 'formal'));
      await call('POST', variantPath('order-confirmed', 'inbox', 'default'), { locale: 'en', content: VALID.inbox });

      const draft = await call('GET', `${T}/order-confirmed/`);
      const live = await call('GET', `${T}/order-confirmed/?mode=live`);
      expect(draft.body.hash).not.toBe(firstLiveHash);
      expect(draft.body.enabled_channels).toEqual(['email', 'sms', 'inbox']);
      expect(live.body).toMatchObject({ hash: firstLiveHash, enabled_channels: ['email', 'sms'], version_no: 1 });
      expect((await call('GET', `${variantPath('order-confirmed', 'email', 'default')}?mode=live`)).body).toMatchObject({ content: VALID.email });
      expect((await call('GET', variantPath('order-confirmed', 'email', 'default'))).body).toMatchObject({ content: changed, action: 'Added' });
      expect((await call('GET', `${variantPath('order-confirmed', 'email', 'formal')}?mode=live`)).status).toBe(200);
      expect(await announcementsOf('order-confirmed')).toHaveLength(1);
    });

    it('commits again with Updated, Unchanged and Added actions, dropping deleted variants from live', async () => {
      const response = await call('PATCH', `${T}/order-confirmed/commit/`, { commit_message: 'Second' });
      expect(response.body).toMatchObject({ version_no: 2, commit_message: 'Second', enabled_channels: ['email', 'sms', 'inbox'] });
      const announced = await expectOneMoreAnnouncement('order-confirmed', 1);
      expect(announced.version).toBeGreaterThan(1);
      expect((announced.document as LiveDocument).variants.map((v) => [v.channel, v.id, v.action])).toEqual([
        ['email', 'default', 'Updated'],
        ['email', 'spanish', 'Unchanged'],
        ['sms', 'default', 'Unchanged'],
        ['inbox', 'default', 'Added'],
      ]);
      expect((await call('GET', `${variantPath('order-confirmed', 'email', 'formal')}?mode=live`)).status).toBe(404);
      expect((await call('GET', variantPath('order-confirmed', 'email', 'spanish'))).body).toMatchObject({ action: 'Unchanged' });
    });

    it('commits nothing and announces nothing when the draft is the live version (also without a body)', async () => {
      const response = await call('PATCH', `${T}/order-confirmed/commit/`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ version_no: 2, commit_message: 'Second' });
      expect(await announcementsOf('order-confirmed')).toHaveLength(2);
    });

    it('answers 404 when committing an unknown template, and 400 for an overlong commit message', async () => {
      expect((await call('PATCH', `${T}/missing/commit/`, {})).status).toBe(404);
      const long = await call('PATCH', `${T}/order-confirmed/commit/`, { commit_message: 'x'.repeat(1001) });
      expect(long.status).toBe(400);
      expect(detailOf(long)).toContain('commit_message:');
    });
  });

  describe('vendor approval', () => {
    const whatsapp = variantPath('otp', 'whatsapp', 'default', 'vendor_approval/');
    const sms = variantPath('otp', 'sms', 'default', 'vendor_approval/');
    const twilio = { vendor_slug: 'twilio-whatsapp', vendor_uid: 'waba-1' };
    const gupshup = { vendor_slug: 'gupshup-whatsapp', vendor_uid: 'acc-2' };
    const msg91 = { vendor_slug: 'msg91-sms', vendor_uid: 'dlt-1' };

    beforeAll(async () => {
      await call('POST', `${T}/otp/`, { name: 'OTP', enabled_channels: ['whatsapp', 'sms', 'email'] });
      await call('POST', variantPath('otp', 'whatsapp', 'default'), { locale: 'en', content: VALID.whatsapp });
      await call('POST', variantPath('otp', 'sms', 'default'), { locale: 'en', content: VALID.sms });
      await call('POST', variantPath('otp', 'email', 'default'), { locale: 'en', content: VALID.email });
    });

    it('refuses approvals of a variant that is not live yet (404)', async () => {
      const response = await call('PATCH', whatsapp, { approval_status: 'sent_for_approval', ...twilio });
      expect(response.status).toBe(404);
      expect(response.body.message).toBe("variant 'default' of channel 'whatsapp' not found in the live version of template 'otp'");
    });

    it('starts approval-needing variants pending on commit, others auto_approved', async () => {
      expect((await call('PATCH', `${T}/otp/commit/`, {})).status).toBe(200);
      const live = (await call('GET', `${T}/otp/variant/?mode=live`)).body as { results: Json[] };
      expect(live.results.map((v) => [v.channel, v.approval_status, v.needs_vendor_approval])).toEqual([
        ['email', 'auto_approved', false],
        ['sms', 'pending', true],
        ['whatsapp', 'pending', true],
      ]);
    });

    it('records a vendor as pending, then sent_for_approval, announcing each change', async () => {
      const before = (await announcementsOf('otp')).length;
      const pending = await call('PATCH', whatsapp, { approval_status: 'pending', ...twilio, vendor_template_category: 'UTILITY' });
      expect(pending.status).toBe(200);
      expect(pending.body).toMatchObject({
        approval_status: 'pending',
        vendor_approvals: [{ ...twilio, approval_status: 'pending', vendor_template_category: 'UTILITY', approval_at: null }],
      });
      await expectOneMoreAnnouncement('otp', before);
      expect((await call('PATCH', whatsapp, { approval_status: 'pending', ...twilio, vendor_locale_code: 'en' })).status).toBe(200);
      const sent = await call('PATCH', whatsapp, { approval_status: 'sent_for_approval', ...twilio });
      expect(sent.body).toMatchObject({
        approval_status: 'sent_for_approval',
        vendor_approvals: [{ approval_status: 'sent_for_approval', vendor_template_category: 'UTILITY', vendor_locale_code: 'en' }],
      });
      const updated = await call('PATCH', whatsapp, { approval_status: 'sent_for_approval', ...twilio, vendor_template_name: 'otp_v1' });
      expect(updated.body).toMatchObject({ vendor_approvals: [{ approval_status: 'sent_for_approval', vendor_template_name: 'otp_v1' }] });
    });

    it('approves only with the vendor template name and id, then lets their details be corrected', async () => {
      const missing = await call('PATCH', whatsapp, { approval_status: 'approved', ...twilio });
      expect(missing.status).toBe(400);
      expect(detailOf(missing)).toBe('vendor_template_id: is required when approval_status is approved');
      const approved = await call('PATCH', whatsapp, { approval_status: 'approved', ...twilio, vendor_template_id: '1232' });
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({
        approval_status: 'approved',
        approval_at: expect.any(String),
        vendor_approvals: [{ approval_status: 'approved', vendor_template_name: 'otp_v1', vendor_template_id: '1232' }],
      });
      const corrected = await call('PATCH', whatsapp, { approval_status: 'approved', ...twilio, vendor_template_id: '1233' });
      expect(corrected.body).toMatchObject({ approval_at: approved.body.approval_at, vendor_approvals: [{ vendor_template_id: '1233' }] });

      const announced = (await announcementsOf('otp')).at(-1) as DefinitionChanged;
      expect(announced.change).toBe('upserted');
      const document = announced.document as LiveDocument;
      expect(document.variants.find((v) => v.channel === 'whatsapp')).toMatchObject({
        approval_status: 'approved',
        content: VALID.whatsapp,
        vendor_approvals: [{ vendor_template_name: 'otp_v1', vendor_template_id: '1233' }],
      });
      // The draft holds the same content, so it shows the same approval.
      expect((await call('GET', variantPath('otp', 'whatsapp', 'default'))).body).toMatchObject({ approval_status: 'approved' });
    });

    it('refuses a transition the state machine does not allow (400), changing nothing', async () => {
      const before = (await announcementsOf('otp')).length;
      const response = await call('PATCH', whatsapp, { approval_status: 'rejected', ...twilio, comment: 'changed our mind' });
      expect(response.status).toBe(400);
      expect(detailOf(response)).toBe(
        'approval_status: cannot go from approved to rejected for vendor twilio-whatsapp (waba-1); allowed: approved',
      );
      const skipping = await call('PATCH', sms, { approval_status: 'approved', ...msg91, vendor_template_name: 'n', vendor_template_id: '1' });
      expect(detailOf(skipping)).toBe(
        'approval_status: cannot go from no entry to approved for vendor msg91-sms (dlt-1); allowed: pending, sent_for_approval',
      );
      expect((await call('GET', `${variantPath('otp', 'whatsapp', 'default')}?mode=live`)).body).toMatchObject({ approval_status: 'approved' });
      expect(await announcementsOf('otp')).toHaveLength(before);
    });

    it('rejects with a reason, and lets a rejected submission be sent again', async () => {
      await call('PATCH', sms, { approval_status: 'sent_for_approval', ...msg91 });
      const noReason = await call('PATCH', sms, { approval_status: 'rejected', ...msg91 });
      expect(noReason.status).toBe(400);
      expect(detailOf(noReason)).toContain('comment: must be a string; it is required when approval_status is rejected');
      const rejected = await call('PATCH', sms, { approval_status: 'rejected', ...msg91, comment: 'DLT header mismatch' });
      expect(rejected.body).toMatchObject({ approval_status: 'rejected', discard_comment: 'DLT header mismatch', approval_at: null });
      const resent = await call('PATCH', sms, { approval_status: 'sent_for_approval', ...msg91 });
      expect(resent.body).toMatchObject({ approval_status: 'sent_for_approval', discard_comment: null });

      // One approving vendor is enough to send; another vendor's rejection does not undo it.
      await call('PATCH', whatsapp, { approval_status: 'sent_for_approval', ...gupshup });
      const otherRejects = await call('PATCH', whatsapp, { approval_status: 'rejected', ...gupshup, comment: 'no' });
      expect(otherRejects.body).toMatchObject({ approval_status: 'approved', vendor_approvals: [{ approval_status: 'approved' }, { approval_status: 'rejected' }] });
    });

    it('refuses vendor approval for channels that need none (409), other modes and bad bodies (400)', async () => {
      const email = await call('PATCH', variantPath('otp', 'email', 'default', 'vendor_approval/'), { approval_status: 'pending', ...twilio });
      expect(email.status).toBe(409);
      expect(email.body.message).toBe("variant 'default' of channel 'email' needs no vendor approval (it is auto_approved)");
      expect(detailOf(await call('PATCH', `${whatsapp}?mode=draft`, { approval_status: 'pending', ...twilio }))).toBe('mode: must be live');
      const bad = await call('PATCH', whatsapp, { approval_status: 'maybe', vendor_template_category: 'SPAM' });
      expect(bad.status).toBe(400);
      for (const path of ['approval_status', 'vendor_slug', 'vendor_uid', 'vendor_template_category']) expect(detailOf(bad)).toContain(`${path}:`);
      expect((await call('PATCH', variantPath('missing', 'sms', 'default', 'vendor_approval/'), { approval_status: 'pending', ...msg91 })).status).toBe(404);
    });

    it('keeps approval across commits while content and locale stay, and starts over when content changes', async () => {
      await call('POST', variantPath('otp', 'whatsapp', 'default'), { locale: 'en', content: { ...VALID.whatsapp, parameters: [] } });
      expect((await call('GET', variantPath('otp', 'whatsapp', 'default'))).body).toMatchObject({ approval_status: 'pending', vendor_approvals: [] });
      expect((await call('GET', `${variantPath('otp', 'whatsapp', 'default')}?mode=live`)).body).toMatchObject({ approval_status: 'approved' });
      await call('PATCH', `${T}/otp/commit/`, {});
      const live = (await call('GET', `${T}/otp/variant/?mode=live`)).body as { results: Json[] };
      expect(live.results.map((v) => [v.channel, v.approval_status, v.action])).toEqual([
        ['email', 'auto_approved', 'Unchanged'],
        ['sms', 'sent_for_approval', 'Unchanged'],
        ['whatsapp', 'pending', 'Updated'],
      ]);
    });
  });

  describe('discard', () => {
    const discard = (channel: string) => variantPath('otp', channel, 'default', 'discard/');

    it('refuses to discard without a comment (400), an approved variant or one needing no approval (409)', async () => {
      expect(detailOf(await call('PATCH', discard('sms'), {}))).toContain('comment:');
      await call('PATCH', variantPath('otp', 'whatsapp', 'default', 'vendor_approval/'), {
        approval_status: 'sent_for_approval',
        vendor_slug: 'twilio-whatsapp',
        vendor_uid: 'waba-1',
      });
      await call('PATCH', variantPath('otp', 'whatsapp', 'default', 'vendor_approval/'), {
        approval_status: 'approved',
        vendor_slug: 'twilio-whatsapp',
        vendor_uid: 'waba-1',
        vendor_template_name: 'otp_v2',
        vendor_template_id: '2000',
      });
      const approved = await call('PATCH', discard('whatsapp'), { comment: 'no' });
      expect(approved.status).toBe(409);
      expect(approved.body.message).toBe(
        "variant 'default' of channel 'whatsapp' is approved; only variants awaiting approval (pending, sent_for_approval, rejected) can be discarded",
      );
      expect((await call('PATCH', discard('email'), { comment: 'no' })).status).toBe(409);
    });

    it('withdraws a variant awaiting approval from live, keeping it in the draft with the comment, and announces it', async () => {
      const before = (await announcementsOf('otp')).length;
      const response = await call('PATCH', `${discard('sms')}?mode=live`, { comment: 'Content needs revision' });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ channel: 'sms', id: 'default', approval_status: 'pending', discard_comment: 'Content needs revision', content: VALID.sms });
      expect((await call('GET', `${variantPath('otp', 'sms', 'default')}?mode=live`)).status).toBe(404);
      expect((await call('GET', variantPath('otp', 'sms', 'default'))).body).toMatchObject({ discard_comment: 'Content needs revision' });
      const announced = await expectOneMoreAnnouncement('otp', before);
      expect((announced.document as LiveDocument).variants.map((v) => v.channel)).toEqual(['email', 'whatsapp']);
      expect((await call('GET', `${T}/otp/?mode=live`)).body).toMatchObject({ channels: expect.arrayContaining([{ channel: 'sms', is_active: true, variants_count: 0 }]) });
      expect((await call('PATCH', discard('sms'), { comment: 'again' })).status).toBe(404);
    });

    it('submits the discarded variant again on the next commit', async () => {
      await call('PATCH', `${T}/otp/commit/`, {});
      expect((await call('GET', `${variantPath('otp', 'sms', 'default')}?mode=live`)).body).toMatchObject({
        approval_status: 'pending',
        discard_comment: null,
        action: 'Added',
      });
    });
  });

  describe('mock data and preview', () => {
    const mock = `${T}/preview-me/mock_data/`;

    beforeAll(async () => {
      expect((await call('POST', `${T}/preview-me/`, { name: 'Preview me', enabled_channels: ['email'] })).status).toBe(200);
      const content = { subject: 'Order {{order}} for {{$recipient.distinct_id}}', html: '<p>{{order}} &amp; {{note}}</p>', text: '{{$batched_events_count}} orders' };
      expect((await call('POST', variantPath('preview-me', 'email', 'default'), { locale: 'en', content })).status).toBe(200);
    });

    it('answers the defaults until set, then keeps the fields a PATCH leaves out', async () => {
      expect((await call('GET', mock)).body).toEqual({
        data: {
          payload: {},
          tenant_id: null,
          is_batch: false,
          batch_count: 2,
          recipient_sub_type: 'user',
          recipient_object: null,
          recipient_distinct_id: null,
          actor_sub_type: 'user',
          actor_object: null,
          actor_distinct_id: null,
        },
        transformed_data: {},
      });
      expect((await call('PATCH', mock, { payload: { order: 'A-1' }, recipient_distinct_id: 'ada' })).status).toBe(200);
      const updated = await call('PATCH', mock, { is_batch: true, batch_count: 3 });
      expect(updated.body).toMatchObject({
        data: { payload: { order: 'A-1' }, recipient_distinct_id: 'ada', is_batch: true, batch_count: 3 },
        transformed_data: { order: 'A-1', $recipient: { distinct_id: 'ada' }, $batched_events_count: 3 },
      });
      expect((await call('GET', `${mock}?mode=live`)).body).toEqual(updated.body);
    });

    it('refuses invalid mock data by field path, changing nothing', async () => {
      const before = (await call('GET', mock)).body;
      const refused = await call('PATCH', mock, { payload: 'x', batch_count: 1000, recipient_sub_type: 'group' });
      expect(refused.status).toBe(400);
      expect(detailOf(refused)).toBe('payload: must be a JSON object; batch_count: must be an integer from 1 to 100; recipient_sub_type: must be one of user, object');
      expect((await call('GET', mock)).body).toEqual(before);
      expect((await call('GET', `${T}/no-such-template/mock_data/`)).status).toBe(404);
    });

    it('renders a draft variant with the mock data as the dispatchers would, naming missing variables', async () => {
      const preview = await call('POST', variantPath('preview-me', 'email', 'default', 'preview/'));
      expect(preview).toEqual({
        status: 200,
        body: {
          template_slug: 'preview-me',
          channel: 'email',
          variant_id: 'default',
          mode: 'draft',
          locale: 'en',
          data: expect.objectContaining({ order: 'A-1' }),
          rendered: { channel: 'email', subject: 'Order A-1 for ada', html: '<p>A-1 &amp; </p>', text: '3 orders' },
          missing_variables: ['html: note'],
          error: null,
        },
      });
    });

    it('renders with the data given instead, and says why a variant does not render', async () => {
      const given = await call('POST', variantPath('preview-me', 'email', 'default', 'preview/'), { data: { order: 'B-2', note: '<b>' } });
      expect(given.body).toMatchObject({ rendered: { subject: 'Order B-2 for ', html: '<p>B-2 &amp; &lt;b&gt;</p>' } });
      expect((await call('POST', variantPath('preview-me', 'email', 'default', 'preview/?mode=live'))).status).toBe(404);

      expect((await call('POST', variantPath('preview-me', 'email', 'broken'), { locale: 'en', content: { subject: '{{#if}}', text: 'x' } })).status).toBe(200);
      const broken = await call('POST', variantPath('preview-me', 'email', 'broken', 'preview/'));
      expect(broken.body).toMatchObject({ rendered: null, error: expect.stringContaining('template error in subject') });
    });

    it("looks {{t}} keys up for the body's locale in the translations of the preview's mode, as a delivery would", async () => {
      const content = { subject: '{{t "greeting"}} {{order}}', text: '{{t "task:created"}}' };
      expect((await call('POST', variantPath('preview-me', 'email', 'translated'), { locale: 'en', content })).status).toBe(200);
      const translations = 'v1/staging/translation';
      expect((await call('POST', `${translations}/content/en.json/`, { content: { greeting: 'Hello' } })).status).toBeLessThan(300);
      expect((await call('POST', `${translations}/content/fr.json/`, { content: { greeting: 'Bonjour' } })).status).toBeLessThan(300);
      expect((await call('POST', `${translations}/content/task.fr-CA.json/`, { content: { created: 'Tâche créée' } })).status).toBeLessThan(300);
      const preview = (locale?: string) => call('POST', variantPath('preview-me', 'email', 'translated', 'preview/'), { data: { order: 'A-1' }, ...(locale ? { locale } : {}) });

      // The drafts, as a commit would make them live: fr-CA → fr → en; a key found nowhere is sent as its text.
      expect((await preview('fr-CA')).body).toMatchObject({ locale: 'fr-CA', rendered: { subject: 'Bonjour A-1', text: 'Tâche créée' }, missing_variables: [] });
      expect((await preview()).body).toMatchObject({ locale: 'en', rendered: { subject: 'Hello A-1', text: 'task:created' }, missing_variables: ['text: t "task:created"'] });

      // A draft over a committed file wins, as it would once committed.
      expect((await call('PATCH', `${translations}/commit/`)).status).toBeLessThan(300);
      expect((await call('POST', `${translations}/content/fr.json/`, { content: { greeting: 'Salut' } })).status).toBeLessThan(300);
      expect((await preview('fr')).body).toMatchObject({ rendered: { subject: 'Salut A-1' } });
    });

    it('renders unsaved content (MJML compiled to HTML) with the mock data, listing what a save would report', async () => {
      const draftPreview = (channel: string, body: unknown) => call('POST', `${T}/preview-me/channel/${channel}/preview/`, body);
      const mjml = '<mjml><mj-body><mj-section><mj-column><mj-text>Order {{order}}</mj-text><mj-button href="https://shop.test/{{order}}">Track</mj-button></mj-column></mj-section></mj-body></mjml>';
      const rendered = await draftPreview('email', { content: { subject: 'Order {{order}}', mjml } });
      expect(rendered.status).toBe(200);
      expect(rendered.body).toMatchObject({ template_slug: 'preview-me', channel: 'email', mode: 'draft', locale: 'en', errors: {}, error: null, missing_variables: [] });
      const html = (rendered.body.rendered as { html: string }).html;
      expect(html).toContain('Order A-1');
      expect(html).toContain('href="https://shop.test/A-1"');
      expect(html).not.toContain('<mj-');
      // Nothing was saved: the template's variants are the ones saved earlier.
      expect(((await call('GET', `${T}/preview-me/channel/email/variant/`)).body.results as Json[]).map((variant) => variant.id)).not.toContain('preview');

      // An unknown MJML tag is reported by line; a saved variant carries the same error and cannot be committed.
      const typo = { subject: 'S', mjml: '<mjml><mj-body>\n<mj-sektion></mj-sektion></mj-body></mjml>' };
      expect((await draftPreview('email', { content: typo })).body).toMatchObject({ errors: { mjml: ["line 2: Element mj-sektion doesn't exist or is not registered"] } });
      const saved = await call('POST', variantPath('preview-me', 'email', 'typo'), { locale: 'en', content: typo });
      expect(saved.body).toMatchObject({ has_error: true, errors: { mjml: ["line 2: Element mj-sektion doesn't exist or is not registered"] } });
      expect((await call('DELETE', variantPath('preview-me', 'email', 'typo'))).status).toBe(204);

      // Other channels, given data, content problems, and a body without content.
      expect((await draftPreview('inbox', { content: { body: 'Hi {{name}}' }, data: { name: 'Ada' } })).body).toMatchObject({ rendered: { channel: 'inbox', body: 'Hi Ada' }, errors: {} });
      expect((await draftPreview('sms', { content: { text: 7 } })).body).toMatchObject({ rendered: null, error: 'template error in text: must be a string', errors: { text: ['must be a string'] } });
      const refused = await draftPreview('email', { data: {}, variant: 'x' });
      expect(refused.status).toBe(400);
      expect(detailOf(refused)).toBe('content: is required; variant: is not a field of a preview request (content, data, locale)');
      expect(detailOf(await draftPreview('email', {}))).toBe('content: is required');
      expect((await call('POST', `${T}/no-such-template/channel/email/preview/`, { content: { subject: 'S', text: 'T' } })).status).toBe(404);
    });

    it('refuses an invalid preview body by field path', async () => {
      const refused = await call('POST', variantPath('preview-me', 'email', 'default', 'preview/'), { data: [], extra: 1 });
      expect(refused.status).toBe(400);
      expect(detailOf(refused)).toBe('extra: is not a field of a preview request (data, locale); data: must be a JSON object');
      const badLocale = await call('POST', variantPath('preview-me', 'email', 'default', 'preview/'), { locale: 'fr CA; drop' });
      expect(badLocale.status).toBe(400);
      expect(detailOf(badLocale)).toBe('locale: must be a locale code such as fr or fr-CA');
    });
  });

  describe('isolation', () => {
    it("shows another account none of this account's templates", async () => {
      expect((await call('GET', `${T}/`, undefined, otherToken)).body).toEqual({ meta: { count: 0, limit: 20, offset: 0 }, results: [] });
      expect((await call('GET', `${T}/order-confirmed/`, undefined, otherToken)).status).toBe(404);
      expect((await call('GET', `${T}/order-confirmed/variant/`, undefined, otherToken)).status).toBe(404);
      expect((await call('GET', variantPath('order-confirmed', 'email', 'default'), undefined, otherToken)).status).toBe(404);
    });

    it("does not let another account change this account's templates", async () => {
      expect((await call('POST', variantPath('order-confirmed', 'email', 'default'), { locale: 'en', content: VALID.email }, otherToken)).status).toBe(404);
      expect((await call('DELETE', variantPath('order-confirmed', 'email', 'default'), undefined, otherToken)).status).toBe(404);
      expect((await call('PATCH', `${T}/order-confirmed/commit/`, {}, otherToken)).status).toBe(404);
      expect((await call('PATCH', variantPath('otp', 'sms', 'default', 'discard/'), { comment: 'x' }, otherToken)).status).toBe(404);
      const approval = { approval_status: 'sent_for_approval', vendor_slug: 'v', vendor_uid: 'u' };
      expect((await call('PATCH', variantPath('otp', 'sms', 'default', 'vendor_approval/'), approval, otherToken)).status).toBe(404);

      // The same slug in the other account's workspace is a template of its own.
      const theirs = await call('POST', `${T}/order-confirmed/`, { name: 'Theirs' }, otherToken);
      expect(theirs.body).toMatchObject({ name: 'Theirs', version_no: null });
      expect((await call('GET', `${T}/order-confirmed/`)).body).toMatchObject({ name: 'Order confirmed', version_no: 2 });
    });
  });
});

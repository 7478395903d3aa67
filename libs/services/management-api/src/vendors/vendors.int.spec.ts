import { randomUUID } from 'node:crypto';
import { DefinitionChanged } from '@herald/contracts';
import { SecretBox, TestHttpApp, hashToken } from '@herald/runtime';
import { databaseTargets, expectEventually } from '@herald/testing';
import { INVALID_SERVICE_TOKEN, ManagementTestApp, startManagementTestApp } from '../testing/management-test-app';
import { CredentialValue } from './credential-fields';
import { CHANNELS, VENDOR_CATALOGUE, vendorSpecOf } from './vendor-catalogue';
import { validCredentials } from './vendor-fixtures';

type Json = Record<string, unknown>;
type Response = { status: number; body: unknown };

/** Priorities that order neither alphabetically nor in catalogue order, so the list's order is the priorities'. */
const PRIORITY: Record<string, number> = {
  'email/smtp': 30,
  'email/sendgrid': 20,
  'email/ses': 40,
  'email/mailgun': 60,
  'email/postmark': 50,
  'email/resend': 10,
  'sms/twilio': 30,
  'sms/vonage': 10,
  'sms/plivo': 20,
};

const DEFAULT_BASE_URL: Record<string, string | null> = {
  'email/smtp': null,
  'email/sendgrid': 'https://api.sendgrid.com',
  'email/ses': 'https://email.eu-west-1.amazonaws.com',
  'email/mailgun': 'https://api.eu.mailgun.net',
  'email/postmark': 'https://api.postmarkapp.com',
  'email/resend': 'https://api.resend.com',
  'sms/twilio': 'https://api.twilio.com',
  'sms/vonage': 'https://rest.nexmo.com',
  'sms/plivo': 'https://api.plivo.com',
  'whatsapp/meta_cloud': 'https://graph.facebook.com',
  'androidpush/fcm': 'https://fcm.googleapis.com',
  'iospush/apns': 'https://api.sandbox.push.apple.com',
  'webpush/vapid': null,
  'slack/slack': 'https://slack.com/api',
  'ms_teams/ms_teams': 'https://smba.trafficmanager.net/teams',
  'inbox/herald_inbox': null,
};

const VENDOR_IDS = VENDOR_CATALOGUE.map((spec) => `${spec.channel}/${spec.vendor}`);

describe.each(databaseTargets())('management API: vendors ($kind)', (target) => {
  let token: string;
  let otherToken: string;
  const valid = validCredentials();
  const rotatedSendgrid = { api_key: 'SG.rotated-sendgrid-key-9876543210' };
  /** Every credential value this suite ever sends, to prove none comes back or goes out. */
  const clearValues = [...Object.entries(valid).flatMap(([id, c]) => secretStrings(id, c)), rotatedSendgrid.api_key];
  let t: ManagementTestApp;
  let app: TestHttpApp;
  let box: SecretBox;
  let myWorkspaceId: string;
  let published: DefinitionChanged[];

  function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
    return t.sql<T>(text, params);
  }

  function call(method: string, path: string, body?: unknown, bearer = token): Promise<Response> {
    return t.call(method, path, body, bearer);
  }

  /** Every response goes through this: no key or secret in clear, every one masked (settings are shown as they are). */
  async function send(method: string, path: string, body?: unknown, bearer = token): Promise<Response> {
    const response = await call(method, path, body, bearer);
    expectNoClearValues(response.body);
    const views = Array.isArray((response.body as { results?: unknown })?.results)
      ? ((response.body as { results: Json[] }).results)
      : [response.body as Json];
    for (const view of views) {
      if (view && typeof view === 'object' && 'credentials' in view) {
        const fields = vendorSpecOf(String(view.channel), String(view.vendor)).credentials;
        for (const [name, shown] of Object.entries(view.credentials as Json)) {
          const field = fields[name];
          if (field?.type === 'string' && field.shown !== 'full') expect(shown).toMatch(/^([^*]{4}\*{4}|\*{8})$/);
        }
      }
    }
    return response;
  }

  function expectNoClearValues(value: unknown): void {
    const text = JSON.stringify(value) ?? '';
    for (const clear of clearValues) expect(text).not.toContain(clear);
  }

  /** What the dispatchers will do: open a sealed blob (a Buffer from the table, base64 from an event) with the row's id. */
  function opened(sealed: unknown, vendorId: unknown): unknown {
    const blob = Buffer.isBuffer(sealed) ? sealed : Buffer.from(String(sealed), 'base64');
    return JSON.parse(box.open(blob, `vendor:${String(vendorId)}`));
  }

  function detailOf(response: Response): string {
    return (response.body as { detail: string }).detail;
  }

  /** The vendor's events in this account's workspace. */
  function eventsOf(id: string, workspaceId = myWorkspaceId): DefinitionChanged[] {
    return published.filter((event) => event.kind === 'vendor' && event.id === id && event.workspace_id === workspaceId);
  }

  beforeAll(async () => {
    t = await startManagementTestApp(target);
    ({ app, token, otherToken, definitions: published } = t);
    box = new SecretBox(app.config.secretsKey as Buffer);
    [{ id: myWorkspaceId }] = await sql<{ id: string }>(
      `SELECT w.id FROM management.workspaces w JOIN management.service_tokens t ON t.account_id = w.account_id
        WHERE t.token_hash = $1 AND w.slug = 'staging'`,
      [hashToken(token)],
    );
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('authentication and not found', () => {
    it.each([
      ['GET', 'v1/staging/vendor/'],
      ['GET', 'v1/staging/vendor/email/sendgrid/'],
      ['PUT', 'v1/staging/vendor/email/sendgrid/'],
      ['DELETE', 'v1/staging/vendor/email/sendgrid/'],
    ])('refuses %s /%s with a wrong token (401 authentication_failed)', async (method, path) => {
      const response = await send(method, path, method === 'PUT' ? { priority: 1, credentials: valid['email/sendgrid'] } : undefined, 'wrong');
      expect(response).toEqual(INVALID_SERVICE_TOKEN);
    });

    it.each([
      ['GET', 'v1/nowhere/vendor/'],
      ['GET', 'v1/nowhere/vendor/email/sendgrid/'],
      ['PUT', 'v1/nowhere/vendor/email/sendgrid/'],
      ['DELETE', 'v1/nowhere/vendor/email/sendgrid/'],
    ])('answers %s /%s of an unknown workspace with 404 not_found', async (method, path) => {
      const response = await send(method, path, method === 'PUT' ? { priority: 1, credentials: valid['email/sendgrid'] } : undefined);
      expect(response).toEqual({
        status: 404,
        body: {
          code: 404,
          error_code: 'not_found',
          type: 'NotFound',
          message: "workspace 'nowhere' not found",
          detail: "workspace 'nowhere' not found",
        },
      });
    });

    it.each([
      ['GET', 'fax/smtp', "unknown channel 'fax' (channels: email, sms, inbox, androidpush, iospush, slack, ms_teams, webpush, whatsapp)"],
      ['PUT', 'email/twilio', "channel 'email' has no vendor 'twilio' (vendors: smtp, sendgrid, ses, mailgun, postmark, resend)"],
      ['DELETE', 'sms/sendgrid', "channel 'sms' has no vendor 'sendgrid' (vendors: twilio, vonage, plivo)"],
    ])('answers %s of a vendor the channel does not have (%s) with 404 not_found, whatever the body', async (method, pair, message) => {
      const response = await send(method, `v1/staging/vendor/${pair}/`, method === 'PUT' ? { priority: 1, credentials: {} } : undefined);
      expect(response).toEqual({ status: 404, body: { code: 404, error_code: 'not_found', type: 'NotFound', message, detail: message } });
    });

    it.each([['GET'], ['DELETE']])('answers %s of a vendor that is not configured with 404', async (method) => {
      const response = await send(method, 'v1/staging/vendor/email/sendgrid/');
      expect(response.status).toBe(404);
      expect((response.body as Json).message).toBe("vendor 'email/sendgrid' is not configured");
    });
  });

  describe('validation', () => {
    it.each([
      ['email/smtp', { ...valid['email/smtp'], port: 70000, from: 'not-an-address' }, ['credentials.port', 'credentials.from']],
      ['email/sendgrid', {}, ['credentials.api_key']],
      ['email/ses', { ...valid['email/ses'], region: 'Europe' }, ['credentials.region']],
      ['email/mailgun', { ...valid['email/mailgun'], region: 'asia' }, ['credentials.region']],
      ['email/postmark', { server_token: '' }, ['credentials.server_token']],
      ['email/resend', { api_key: 42 }, ['credentials.api_key']],
      ['sms/twilio', { ...valid['sms/twilio'], account_sid: 'SK123' }, ['credentials.account_sid']],
      ['sms/vonage', { ...valid['sms/vonage'], from: '+1 415 555' }, ['credentials.from']],
      ['sms/plivo', { auth_id: valid['sms/plivo'].auth_id, from: valid['sms/plivo'].from }, ['credentials.auth_token']],
      ['whatsapp/meta_cloud', { ...valid['whatsapp/meta_cloud'], phone_number_id: 'abc' }, ['credentials.phone_number_id']],
      ['androidpush/fcm', { service_account_json: '{"project_id":"herald-test"}' }, ['credentials.service_account_json']],
      ['iospush/apns', { ...valid['iospush/apns'], team_id: 'abc', environment: 'staging' }, ['credentials.team_id', 'credentials.environment']],
      ['webpush/vapid', { ...valid['webpush/vapid'], public_key: 'short' }, ['credentials.public_key']],
      ['slack/slack', { bot_token: 'not-a-slack-token' }, ['credentials.bot_token']],
      ['ms_teams/ms_teams', { app_password: 'teams-app-password-0123' }, ['credentials.app_id']],
      ['inbox/herald_inbox', { api_key: 'nothing-to-hold' }, ['credentials.api_key']],
    ])('refuses invalid credentials of %s by field path (400), and configures nothing', async (id, credentials, paths) => {
      const response = await send('PUT', `v1/staging/vendor/${id}/`, { priority: 1, credentials });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 400, error_code: 'validation_error', type: 'ValidationError' });
      const failed = detailOf(response)
        .split('; ')
        .map((part) => part.slice(0, part.indexOf(':')));
      expect(failed).toEqual(paths);
      expect((await send('GET', `v1/staging/vendor/${id}/`)).status).toBe(404);
    });

    it('reports every failing body and credential field at once', async () => {
      const response = await send('PUT', 'v1/staging/vendor/email/sendgrid/', {
        is_enabled: 'yes',
        priority: 0,
        base_url: 'ftp://files.example.com',
        credentials: { api_key: ' SG.padded ', apikey: 'misspelt' },
        settings: { from_name: 'Herald', webhook: { signing_secret: 'x' } },
      });
      expect(response.status).toBe(400);
      const detail = detailOf(response);
      for (const path of ['is_enabled', 'priority', 'base_url', 'credentials.api_key', 'credentials.apikey', 'settings.webhook.signing_secret']) {
        expect(detail).toContain(`${path}: `);
      }
      expect(detail).toContain('settings.webhook.signing_secret: looks like a secret');
      expect(detail).not.toContain('settings.from_name');
    });

    it('requires a priority and the credentials when a vendor is first configured', async () => {
      const response = await send('PUT', 'v1/staging/vendor/email/sendgrid/', { priority: null });
      expect(response.status).toBe(400);
      expect(detailOf(response)).toBe('priority: is required when the vendor is first configured; credentials.api_key: is required');
    });

    it('refuses credentials that are not an object, and a base URL with user info or a query', async () => {
      const notObject = await send('PUT', 'v1/staging/vendor/email/sendgrid/', { priority: 1, credentials: ['SG.x'] });
      expect(detailOf(notObject)).toBe('credentials: must be an object');
      const userInfo = await send('PUT', 'v1/staging/vendor/email/sendgrid/', {
        priority: 1,
        credentials: valid['email/sendgrid'],
        base_url: 'https://user:pw@api.example.com/v3?x=1',
      });
      expect(detailOf(userInfo)).toBe(
        'base_url: must not contain user info (secrets go in credentials); base_url: must not contain a query or a fragment',
      );
    });
  });

  describe('configuring', () => {
    it.each(VENDOR_IDS)('creates %s (201) with each credential shown or masked', async (id) => {
      const priority = PRIORITY[id] ?? 1;
      const response = await send('PUT', `v1/staging/vendor/${id}/`, { priority, credentials: valid[id] });
      expect(response.status).toBe(201);
      const [channel, vendor] = id.split('/');
      expect(response.body).toEqual({
        id: expect.any(String),
        channel,
        vendor,
        is_enabled: true,
        priority,
        base_url: DEFAULT_BASE_URL[id],
        settings: {},
        credentials: Object.fromEntries(Object.entries(valid[id]).map(([name, value]) => [name, typeof value === 'string' ? expect.any(String) : value])),
        has_credentials: Object.keys(valid[id]).length > 0,
        version: 1,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
    });

    it('shows settings in full (host, port, sender), a hint of long identifiers, and nothing of secrets or short keys', async () => {
      expect((await send('GET', 'v1/staging/vendor/email/smtp/')).body).toMatchObject({
        credentials: { host: 'smtp.example.com', port: 587, secure: false, username: 'mail****', password: '********', from: 'Herald <noreply@example.com>' },
        has_credentials: true,
      });
      expect((await send('GET', 'v1/staging/vendor/email/sendgrid/')).body).toMatchObject({ credentials: { api_key: 'SG.s****' } });
      expect((await send('GET', 'v1/staging/vendor/inbox/herald_inbox/')).body).toMatchObject({ credentials: {}, has_credentials: false });
    });

    it('lists by channel, then priority, and filters by channel', async () => {
      const all = (await send('GET', 'v1/staging/vendor/?limit=100')).body as { meta: Json; results: Json[] };
      expect(all.meta).toEqual({ count: VENDOR_IDS.length, limit: 100, offset: 0 });
      expect(all.results.map((v) => `${String(v.channel)}/${String(v.vendor)}`)).toEqual([
        'androidpush/fcm',
        'email/resend',
        'email/sendgrid',
        'email/smtp',
        'email/ses',
        'email/postmark',
        'email/mailgun',
        'inbox/herald_inbox',
        'iospush/apns',
        'ms_teams/ms_teams',
        'slack/slack',
        'sms/vonage',
        'sms/plivo',
        'sms/twilio',
        'webpush/vapid',
        'whatsapp/meta_cloud',
      ]);
      expect((await send('GET', 'v1/staging/vendor/?channel=sms')).body).toMatchObject({
        meta: { count: 3, limit: 20, offset: 0 },
        results: [{ vendor: 'vonage', priority: 10 }, { vendor: 'plivo', priority: 20 }, { vendor: 'twilio', priority: 30 }],
      });
      expect((await send('GET', 'v1/staging/vendor/?channel=email&limit=2&offset=1')).body).toMatchObject({
        meta: { count: 6, limit: 2, offset: 1 },
        results: [{ vendor: 'sendgrid' }, { vendor: 'smtp' }],
      });
    });

    it('refuses an unknown channel filter and an invalid page together (400)', async () => {
      const response = await send('GET', 'v1/staging/vendor/?channel=fax&limit=0');
      expect(response.status).toBe(400);
      expect(detailOf(response)).toBe(
        `channel: must be one of ${CHANNELS.join(', ')}; limit: must be an integer from 1 to 1000`,
      );
    });

    it('stores credentials sealed with the row as associated data, never in clear', async () => {
      const rows = await sql<{ id: string; channel: string; vendor: string; credentials_sealed: Buffer; row: string }>(
        `SELECT id, channel, vendor, credentials_sealed, row_to_json(v)::text AS row FROM management.vendors v WHERE workspace_id = $1`,
        [myWorkspaceId],
      );
      expect(rows).toHaveLength(VENDOR_IDS.length);
      for (const row of rows) {
        const clear = valid[`${row.channel}/${row.vendor}`];
        // Every value is sealed, settings included: none is stored in clear.
        for (const value of Object.values(clear).filter((item): item is string => typeof item === 'string' && item.length >= 10)) {
          expect(row.credentials_sealed.includes(Buffer.from(value))).toBe(false);
          expect(row.row).not.toContain(value);
        }
        expect(opened(row.credentials_sealed, row.id)).toEqual(clear);
        // Copied onto another row, the blob does not open.
        expect(() => box.open(row.credentials_sealed, `vendor:${randomUUID()}`)).toThrow();
      }
    });

    it('announces each vendor with its credentials sealed, never in clear', async () => {
      for (const id of VENDOR_IDS) {
        const [event] = await expectEventually(() => {
          const events = eventsOf(id);
          expect(events).toHaveLength(1);
          return events;
        });
        const document = event.document as Json;
        const [channel, vendor] = id.split('/');
        expect(event).toMatchObject({ kind: 'vendor', change: 'upserted', workspace_slug: 'staging', id, version: 1 });
        expect(document).toEqual({
          id: expect.any(String),
          channel,
          vendor,
          is_enabled: true,
          priority: PRIORITY[id] ?? 1,
          base_url: DEFAULT_BASE_URL[id],
          settings: {},
          credentials_sealed: expect.any(String),
          version: 1,
        });
        expect(opened(document.credentials_sealed, document.id)).toEqual(valid[id]);
        expectNoClearValues(event);
      }
    });
  });

  describe('updating', () => {
    it('keeps the stored credentials when a PUT changes only settings, state or priority (200)', async () => {
      const before = (await send('GET', 'v1/staging/vendor/email/sendgrid/')).body as Json;
      const response = await send('PUT', 'v1/staging/vendor/email/sendgrid/', {
        is_enabled: false,
        priority: 25,
        settings: { from_name: 'Herald', sandbox_mode: true },
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        ...before,
        is_enabled: false,
        priority: 25,
        settings: { from_name: 'Herald', sandbox_mode: true },
        version: 2,
        updated_at: expect.any(String),
      });
      const [row] = await sql<{ credentials_sealed: Buffer }>(`SELECT credentials_sealed FROM management.vendors WHERE id = $1`, [before.id]);
      expect(opened(row.credentials_sealed, before.id)).toEqual(valid['email/sendgrid']);
    });

    it('keeps every field a PUT leaves out or sends as null (but base_url)', async () => {
      const response = await send('PUT', 'v1/staging/vendor/email/sendgrid/', { priority: null, credentials: null, settings: null });
      expect(response).toMatchObject({
        status: 200,
        body: {
          is_enabled: false,
          priority: 25,
          settings: { from_name: 'Herald', sandbox_mode: true },
          credentials: { api_key: 'SG.s****' },
          version: 3,
        },
      });
    });

    it('overrides the base URL (http allowed, trailing slash dropped) and returns to the default with null', async () => {
      const local = await send('PUT', 'v1/staging/vendor/email/sendgrid/', { base_url: 'http://127.0.0.1:4010/' });
      expect(local.body).toMatchObject({ base_url: 'http://127.0.0.1:4010', version: 4 });
      const back = await send('PUT', 'v1/staging/vendor/email/sendgrid/', { base_url: null });
      expect(back.body).toMatchObject({ base_url: 'https://api.sendgrid.com', version: 5 });
    });

    it('replaces the credentials a PUT carries', async () => {
      const response = await send('PUT', 'v1/staging/vendor/email/sendgrid/', { credentials: rotatedSendgrid, is_enabled: true });
      expect(response.body).toMatchObject({ credentials: { api_key: 'SG.r****' }, is_enabled: true, version: 6 });
      const id = (response.body as Json).id;
      const [row] = await sql<{ credentials_sealed: Buffer }>(`SELECT credentials_sealed FROM management.vendors WHERE id = $1`, [id]);
      expect(opened(row.credentials_sealed, id)).toEqual(rotatedSendgrid);
    });

    it('merges the credentials a PUT carries into the stored ones: left out keeps, null removes an optional one', async () => {
      const smtp = (await send('GET', 'v1/staging/vendor/email/smtp/')).body as Json;
      // An edit form leaves the masked password out and types over the host only.
      const edited = await send('PUT', 'v1/staging/vendor/email/smtp/', { credentials: { host: 'smtp2.example.com' } });
      expect(edited.body).toMatchObject({ credentials: { ...(smtp.credentials as Json), host: 'smtp2.example.com' } });
      const [row] = await sql<{ credentials_sealed: Buffer }>(`SELECT credentials_sealed FROM management.vendors WHERE id = $1`, [smtp.id]);
      expect(opened(row.credentials_sealed, smtp.id)).toEqual({ ...valid['email/smtp'], host: 'smtp2.example.com' });
      // A required field cannot be removed; an optional one can.
      const refused = await send('PUT', 'v1/staging/vendor/email/smtp/', { credentials: { password: null } });
      expect(detailOf(refused)).toBe('credentials.password: is required');
      const mailgun = await send('PUT', 'v1/staging/vendor/email/mailgun/', { credentials: { region: null } });
      expect(mailgun.body).toMatchObject({ credentials: { domain: valid['email/mailgun'].domain } });
      expect((mailgun.body as { credentials: Json }).credentials).not.toHaveProperty('region');
    });

    it('changes nothing when an update is invalid', async () => {
      const response = await send('PUT', 'v1/staging/vendor/email/sendgrid/', { priority: 7, credentials: { api_key: '' } });
      expect(response.status).toBe(400);
      expect((await send('GET', 'v1/staging/vendor/email/sendgrid/')).body).toMatchObject({ priority: 25, version: 6 });
    });

    it('announces every change with an increasing version, credentials sealed', async () => {
      const events = await expectEventually(() => {
        const found = eventsOf('email/sendgrid');
        expect(found).toHaveLength(6);
        return found;
      });
      expect(events.map((e) => e.version)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(events.map((e) => (e.document as Json).base_url)).toEqual([
        'https://api.sendgrid.com',
        'https://api.sendgrid.com',
        'https://api.sendgrid.com',
        'http://127.0.0.1:4010',
        'https://api.sendgrid.com',
        'https://api.sendgrid.com',
      ]);
      const last = events[5].document as Json;
      expect(opened(last.credentials_sealed, last.id)).toEqual(rotatedSendgrid);
      expectNoClearValues(events);
    });
  });

  describe('send a test', () => {
    it('checks the destination, the vendor, and answers 503 where no dispatchers can be reached', async () => {
      const refused = await send('POST', 'v1/staging/vendor/email/smtp/test/', { to: '', cc: 'x' });
      expect(refused.status).toBe(400);
      expect(detailOf(refused)).toBe('cc: is not a field of a vendor test (to); to: must be 1 to 320 characters');
      expect(detailOf(await send('POST', 'v1/staging/vendor/email/smtp/test/', {}))).toBe('to: is required: an address, token or distinct_id, or an identity object');
      expect((await send('POST', 'v1/staging/vendor/email/nope/test/', { to: 'ada@example.com' })).status).toBe(404);
      // This test app runs management-api alone, without HERALD_DISPATCHERS_URL (the browser spec sends through real dispatchers).
      const alone = await send('POST', 'v1/staging/vendor/email/smtp/test/', { to: 'ada@example.com' });
      expect(alone.status).toBe(503);
      expect(detailOf(alone)).toBe('vendor tests need channel-dispatchers: set HERALD_DISPATCHERS_URL on management-api');
    });
  });

  describe('priorities', () => {
    it('refuses a priority another vendor of the channel holds (409 conflict), and changes nothing', async () => {
      const response = await send('PUT', 'v1/staging/vendor/email/ses/', { priority: 10 });
      expect(response).toEqual({
        status: 409,
        body: {
          code: 409,
          error_code: 'conflict',
          type: 'ConflictError',
          message: "priority 10 of channel 'email' is already taken by 'resend'",
          detail: "priority 10 of channel 'email' is already taken by 'resend'",
        },
      });
      expect((await send('GET', 'v1/staging/vendor/email/ses/')).body).toMatchObject({ priority: 40, version: 1 });
    });

    it('counts a disabled vendor as holding its priority, but not another channel', async () => {
      await send('PUT', 'v1/staging/vendor/email/resend/', { is_enabled: false });
      expect((await send('PUT', 'v1/staging/vendor/email/ses/', { priority: 10 })).status).toBe(409);
      await send('PUT', 'v1/staging/vendor/email/resend/', { is_enabled: true });
      // sms/vonage holds 10 as well: priorities are per channel.
      expect((await send('PUT', 'v1/staging/vendor/email/resend/', { priority: 10 })).status).toBe(200);
    });

    it('lets two vendors swap priorities through a free one', async () => {
      expect((await send('PUT', 'v1/staging/vendor/sms/vonage/', { priority: 99 })).status).toBe(200);
      expect((await send('PUT', 'v1/staging/vendor/sms/twilio/', { priority: 10 })).status).toBe(200);
      expect((await send('PUT', 'v1/staging/vendor/sms/vonage/', { priority: 30 })).status).toBe(200);
      expect(((await send('GET', 'v1/staging/vendor/?channel=sms')).body as { results: Json[] }).results.map((v) => v.vendor)).toEqual([
        'twilio',
        'plivo',
        'vonage',
      ]);
    });
  });

  describe('deleting', () => {
    let postmarkId: string;

    it('deletes a vendor (204), after which it is gone, and its credentials with it', async () => {
      postmarkId = ((await send('GET', 'v1/staging/vendor/email/postmark/')).body as Json).id as string;
      expect((await send('DELETE', 'v1/staging/vendor/email/postmark/')).status).toBe(204);
      expect((await send('GET', 'v1/staging/vendor/email/postmark/')).status).toBe(404);
      expect((await send('DELETE', 'v1/staging/vendor/email/postmark/')).status).toBe(404);
      expect((await send('GET', 'v1/staging/vendor/?channel=email')).body).toMatchObject({ meta: { count: 5 } });
      const [row] = await sql<{ credentials_sealed: Buffer | null }>(`SELECT credentials_sealed FROM management.vendors WHERE id = $1`, [postmarkId]);
      expect(row.credentials_sealed).toBeNull();
      await expectEventually(() =>
        expect(eventsOf('email/postmark').map((e) => [e.change, e.version, e.document])).toEqual([
          ['upserted', 1, expect.any(Object)],
          ['deleted', 2, undefined],
        ]),
      );
    });

    it('frees the priority of a deleted vendor', async () => {
      expect((await send('PUT', 'v1/staging/vendor/email/ses/', { priority: 50 })).status).toBe(200);
    });

    it('configures a deleted vendor again (201), needing its credentials, with its version going on', async () => {
      const withoutCredentials = await send('PUT', 'v1/staging/vendor/email/postmark/', { priority: 55 });
      expect(detailOf(withoutCredentials)).toBe('credentials.server_token: is required');
      const taken = await send('PUT', 'v1/staging/vendor/email/postmark/', { priority: 50, credentials: valid['email/postmark'] });
      expect(taken.status).toBe(409);
      const again = await send('PUT', 'v1/staging/vendor/email/postmark/', { priority: 55, credentials: valid['email/postmark'] });
      expect(again).toMatchObject({ status: 201, body: { id: postmarkId, priority: 55, version: 3, settings: {}, is_enabled: true } });
      await expectEventually(() => expect(eventsOf('email/postmark').map((e) => [e.change, e.version])).toContainEqual(['upserted', 3]));
    });
  });

  describe('isolation', () => {
    it("does not let another account see or touch this workspace's vendors", async () => {
      expect((await send('GET', 'v1/staging/vendor/', undefined, otherToken)).body).toMatchObject({ meta: { count: 0 }, results: [] });
      expect((await send('GET', 'v1/staging/vendor/email/sendgrid/', undefined, otherToken)).status).toBe(404);
      expect((await send('DELETE', 'v1/staging/vendor/email/sendgrid/', undefined, otherToken)).status).toBe(404);
    });

    it("configures the other account's vendor independently, priorities included", async () => {
      const created = await send('PUT', 'v1/staging/vendor/email/sendgrid/', { priority: 10, credentials: valid['email/sendgrid'] }, otherToken);
      expect(created).toMatchObject({ status: 201, body: { priority: 10, version: 1, credentials: { api_key: 'SG.s****' } } });
      expect((await send('GET', 'v1/staging/vendor/email/sendgrid/')).body).toMatchObject({ priority: 25, credentials: { api_key: 'SG.r****' } });
      expect((await send('GET', 'v1/staging/vendor/', undefined, otherToken)).body).toMatchObject({ meta: { count: 1 } });
      expect((await send('GET', 'v1/staging/vendor/?limit=100')).body).toMatchObject({ meta: { count: VENDOR_IDS.length } });
      const [{ workspace_id: otherWorkspaceId }] = await sql<{ workspace_id: string }>(
        `SELECT workspace_id FROM management.vendors WHERE id = $1`,
        [(created.body as Json).id],
      );
      expect(otherWorkspaceId).not.toBe(myWorkspaceId);
      await expectEventually(() => expect(eventsOf('email/sendgrid', otherWorkspaceId).map((e) => [e.change, e.version])).toEqual([['upserted', 1]]));
    });
  });
});

/**
 * The string values of credentials long enough to be unmistakable in a response or an
 * event. Shorter ones (an AWS region, which the default base URL names anyway) are not secret.
 */
/** The keys and secrets of a vendor's credentials (every string the catalogue does not show in full). */
function secretStrings(vendorId: string, credentials: Record<string, CredentialValue>): string[] {
  const fields = vendorSpecOf(...(vendorId.split('/') as [string, string])).credentials;
  return Object.entries(credentials)
    .filter(([name, value]) => typeof value === 'string' && value.length >= 10 && !(fields[name]?.type === 'string' && fields[name].shown === 'full'))
    .map(([, value]) => value as string);
}

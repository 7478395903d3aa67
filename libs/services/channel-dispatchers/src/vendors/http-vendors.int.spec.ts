import { Channel } from '@herald/contracts';
import { RenderedContent } from '@herald/rendering';
import { RecordingServer } from '../testing/recording-server';
import { MsTeamsVendor } from './chat/ms-teams-vendor';
import { SlackVendor } from './chat/slack-vendor';
import { MailgunVendor, PostmarkVendor, ResendVendor, SendgridVendor } from './email/http-email-vendors';
import { GuardedHttp } from './http/guarded-http';
import { PlivoVendor, TwilioVendor, VonageVendor } from './sms/sms-vendors';
import { StatusCallbackUrls } from './status-callback-urls';
import { ChannelVendor, CredentialValue, SendResult, VendorConfig } from './vendor.port';

// The local vendor servers listen on loopback, which the outbound rule refuses unless allowed.
const http = new GuardedHttp(['127.0.0.0/8']);
afterAll(() => http.close());
const email: RenderedContent = { channel: 'email', subject: 'Welcome Ada', html: '<p>Hi</p>', text: 'Hi', replyTo: 'help@acme.test' };
const sms: RenderedContent = { channel: 'sms', text: 'Your code is 1234' };

let server: RecordingServer;
beforeEach(async () => {
  server = await RecordingServer.start();
});
afterEach(() => server.close());

function config(channel: Channel, vendor: string, credentials: Record<string, CredentialValue>, settings: Record<string, unknown> = {}): VendorConfig {
  return { id: 'v1', channel, vendor, priority: 1, baseUrl: server.url, settings, credentials, version: 1 };
}

function send(vendor: ChannelVendor, content: RenderedContent, identity: unknown, vendorConfig: VendorConfig): Promise<SendResult> {
  return vendor.send({ deliveryId: 'd-1', workspaceId: 'w', recipientId: 'u1', content, identity, config: vendorConfig, idempotencyKey: 'idem-1' });
}

const lastRequest = () => server.requests[server.requests.length - 1];
const jsonBody = () => JSON.parse(lastRequest().body) as Record<string, unknown>;
const formBody = () => Object.fromEntries(new URLSearchParams(lastRequest().body));

describe('email vendors', () => {
  it('sendgrid: Bearer key, v3 mail/send body, id from X-Message-Id; 429 retryable, 401 permanent', async () => {
    const sendgrid = new SendgridVendor(http);
    const cfg = config('email', 'sendgrid', { api_key: 'SG.key' }, { from: 'noreply@acme.test' });
    server.respond({ status: 202, headers: { 'x-message-id': 'sg-1' } }, { status: 429, body: { errors: [] } }, { status: 401, body: { errors: [{ message: 'bad key' }] } });
    expect(await send(sendgrid, email, 'ada@example.com', cfg)).toEqual({ ok: true, vendorMessageId: 'sg-1' });
    expect(lastRequest()).toMatchObject({ method: 'POST', path: '/v3/mail/send', headers: { authorization: 'Bearer SG.key' } });
    expect(jsonBody()).toMatchObject({
      personalizations: [{ to: [{ email: 'ada@example.com' }] }],
      from: { email: 'noreply@acme.test' },
      reply_to: { email: 'help@acme.test' },
      subject: 'Welcome Ada',
      content: [{ type: 'text/plain', value: 'Hi' }, { type: 'text/html', value: '<p>Hi</p>' }],
    });
    expect(await send(sendgrid, email, 'ada@example.com', cfg)).toMatchObject({ ok: false, retryable: true });
    expect(await send(sendgrid, email, 'ada@example.com', cfg)).toMatchObject({ ok: false, retryable: false, reason: expect.stringContaining('401') });
  });

  it('mailgun: basic api:key, form to the domain; 500 retryable, 400 permanent', async () => {
    const mailgun = new MailgunVendor(http);
    const cfg = config('email', 'mailgun', { api_key: 'mg-key', domain: 'mg.acme.test' }, { from: 'Acme <noreply@acme.test>' });
    server.respond({ status: 200, body: { id: '<mg-1>' } }, { status: 500 }, { status: 400, body: { message: "'to' parameter is not a valid address" } });
    expect(await send(mailgun, email, 'ada@example.com', cfg)).toEqual({ ok: true, vendorMessageId: '<mg-1>' });
    expect(lastRequest()).toMatchObject({ path: '/v3/mg.acme.test/messages', headers: { authorization: `Basic ${Buffer.from('api:mg-key').toString('base64')}` } });
    expect(formBody()).toMatchObject({ from: 'Acme <noreply@acme.test>', to: 'ada@example.com', subject: 'Welcome Ada', html: '<p>Hi</p>', text: 'Hi', 'h:Reply-To': 'help@acme.test' });
    expect(await send(mailgun, email, 'ada@example.com', cfg)).toMatchObject({ ok: false, retryable: true });
    expect(await send(mailgun, email, 'bad', cfg)).toMatchObject({ ok: false, retryable: false });
  });

  it('postmark: server token header, PascalCase body; 503 retryable, 422 permanent', async () => {
    const postmark = new PostmarkVendor(http);
    const cfg = config('email', 'postmark', { server_token: 'pm-token' }, { from: 'noreply@acme.test' });
    server.respond({ status: 200, body: { MessageID: 'pm-1', ErrorCode: 0 } }, { status: 503 }, { status: 422, body: { ErrorCode: 300, Message: 'Invalid email request' } });
    expect(await send(postmark, email, 'ada@example.com', cfg)).toEqual({ ok: true, vendorMessageId: 'pm-1' });
    expect(lastRequest()).toMatchObject({ path: '/email', headers: { 'x-postmark-server-token': 'pm-token' } });
    expect(jsonBody()).toMatchObject({ From: 'noreply@acme.test', To: 'ada@example.com', Subject: 'Welcome Ada', HtmlBody: '<p>Hi</p>', TextBody: 'Hi', ReplyTo: 'help@acme.test' });
    expect(await send(postmark, email, 'ada@example.com', cfg)).toMatchObject({ ok: false, retryable: true });
    expect(await send(postmark, email, 'ada@example.com', cfg)).toMatchObject({ ok: false, retryable: false });
  });

  it('resend: Bearer key and the delivery idempotency key; 429 retryable, 403 permanent', async () => {
    const resend = new ResendVendor(http);
    const cfg = config('email', 'resend', { api_key: 're_key' }, { from: 'noreply@acme.test' });
    server.respond({ status: 200, body: { id: 're-1' } }, { status: 429 }, { status: 403 });
    expect(await send(resend, email, 'ada@example.com', cfg)).toEqual({ ok: true, vendorMessageId: 're-1' });
    expect(lastRequest()).toMatchObject({ path: '/emails', headers: { authorization: 'Bearer re_key', 'idempotency-key': 'idem-1' } });
    expect(jsonBody()).toMatchObject({ from: 'noreply@acme.test', to: ['ada@example.com'], subject: 'Welcome Ada' });
    expect(await send(resend, email, 'ada@example.com', cfg)).toMatchObject({ ok: false, retryable: true });
    expect(await send(resend, email, 'ada@example.com', cfg)).toMatchObject({ ok: false, retryable: false });
  });

  it('a vendor without a sender configured fails permanently, and an unreachable one is retryable', async () => {
    await expect(send(new SendgridVendor(http), email, 'ada@example.com', config('email', 'sendgrid', { api_key: 'k' }))).rejects.toThrow('from is not configured');
    const unreachable = { ...config('email', 'resend', { api_key: 'k' }, { from: 'a@b.test' }), baseUrl: 'http://127.0.0.1:1' };
    expect(await send(new ResendVendor(http), email, 'ada@example.com', unreachable)).toMatchObject({ ok: false, retryable: true, reason: expect.stringContaining('unreachable') });
  });

  it('a vendor on an address the outbound rule refuses is not called, and the failure is retried (it is configuration)', async () => {
    const guarded = new GuardedHttp([]);
    try {
      const result = await send(new ResendVendor(guarded), email, 'ada@example.com', config('email', 'resend', { api_key: 're_key' }, { from: 'a@b.test' }));
      expect(result).toMatchObject({ ok: false, retryable: true, reason: expect.stringContaining('loopback') });
      expect(result).not.toMatchObject({ reason: expect.stringContaining('re_key') });
      expect(server.requests).toHaveLength(0);
    } finally {
      guarded.close();
    }
  });
});

describe('email vendors: attachments', () => {
  const pdf = Buffer.from('%PDF-1.4 invoice');
  const withFile: RenderedContent = { ...email, channel: 'email', attachments: [{ filename: 'invoice.pdf', contentType: 'application/pdf', content: pdf }] };

  it('sendgrid, resend and postmark carry each file base64 in their own field', async () => {
    server.respond({ status: 202 }, { status: 200, body: { id: 're-1' } }, { status: 200, body: { MessageID: 'pm-1' } });
    await send(new SendgridVendor(http), withFile, 'ada@example.com', config('email', 'sendgrid', { api_key: 'k' }, { from: 'a@acme.test' }));
    expect(jsonBody().attachments).toEqual([{ content: pdf.toString('base64'), filename: 'invoice.pdf', type: 'application/pdf', disposition: 'attachment' }]);
    await send(new ResendVendor(http), withFile, 'ada@example.com', config('email', 'resend', { api_key: 'k' }, { from: 'a@acme.test' }));
    expect(jsonBody().attachments).toEqual([{ filename: 'invoice.pdf', content: pdf.toString('base64'), content_type: 'application/pdf' }]);
    await send(new PostmarkVendor(http), withFile, 'ada@example.com', config('email', 'postmark', { server_token: 't' }, { from: 'a@acme.test' }));
    expect(jsonBody().Attachments).toEqual([{ Name: 'invoice.pdf', Content: pdf.toString('base64'), ContentType: 'application/pdf' }]);
  });

  it('mailgun switches to multipart with an attachment part', async () => {
    server.respond({ status: 200, body: { id: '<mg-1>' } });
    await send(new MailgunVendor(http), withFile, 'ada@example.com', config('email', 'mailgun', { api_key: 'k', domain: 'mg.acme.test' }, { from: 'a@acme.test' }));
    expect(lastRequest().headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(lastRequest().body).toContain('Content-Disposition: form-data; name="attachment"; filename="invoice.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 invoice');
    expect(lastRequest().body).toContain('Content-Disposition: form-data; name="subject"\r\n\r\nWelcome Ada');
  });
});

describe('sms vendors', () => {
  const sid = `AC${'a'.repeat(32)}`;

  it('twilio: basic SID:token, form To/From/Body; 429 retryable, 400 permanent', async () => {
    const twilio = new TwilioVendor(http);
    const cfg = config('sms', 'twilio', { account_sid: sid, auth_token: 'tw-token', from: '+14155550100' });
    server.respond({ status: 201, body: { sid: 'SM1' } }, { status: 429 }, { status: 400, body: { code: 21211, message: "The 'To' number is not valid" } });
    expect(await send(twilio, sms, '+4915112345678', cfg)).toEqual({ ok: true, vendorMessageId: 'SM1' });
    expect(lastRequest()).toMatchObject({ path: `/2010-04-01/Accounts/${sid}/Messages.json`, headers: { authorization: `Basic ${Buffer.from(`${sid}:tw-token`).toString('base64')}` } });
    expect(formBody()).toEqual({ To: '+4915112345678', From: '+14155550100', Body: 'Your code is 1234' });
    expect(await send(twilio, sms, '+4915112345678', cfg)).toMatchObject({ ok: false, retryable: true });
    expect(await send(twilio, sms, '+49', cfg)).toMatchObject({ ok: false, retryable: false, reason: expect.stringContaining('21211') });
  });

  it('vonage: key and secret in the form, status per part; throttled retryable, invalid number permanent', async () => {
    const vonage = new VonageVendor(http);
    const cfg = config('sms', 'vonage', { api_key: 'vk', api_secret: 'vs', from: 'Acme' });
    server.respond(
      { status: 200, body: { messages: [{ status: '0', 'message-id': 'vn-1' }] } },
      { status: 200, body: { messages: [{ status: '1', 'error-text': 'Throttled' }] } },
      { status: 200, body: { messages: [{ status: '3', 'error-text': 'Invalid to' }] } },
    );
    expect(await send(vonage, sms, '+4915112345678', cfg)).toEqual({ ok: true, vendorMessageId: 'vn-1' });
    expect(lastRequest().path).toBe('/sms/json');
    expect(formBody()).toMatchObject({ api_key: 'vk', api_secret: 'vs', from: 'Acme', to: '4915112345678', text: 'Your code is 1234' });
    expect(await send(vonage, sms, '+4915112345678', cfg)).toMatchObject({ ok: false, retryable: true });
    expect(await send(vonage, sms, '+49', cfg)).toMatchObject({ ok: false, retryable: false, reason: 'vonage status 3: Invalid to' });
  });
});

describe('sms vendors: plivo', () => {
  it('plivo: basic auth_id:token, JSON src/dst/text, the first message_uuid; 429 retryable, 400 permanent', async () => {
    const plivo = new PlivoVendor(http);
    const cfg = config('sms', 'plivo', { auth_id: 'MAXXXXXXXXXXXXXXXXXX', auth_token: 'pl-token', from: '+14155550100' });
    server.respond(
      { status: 202, body: { api_id: 'a1', message: 'message(s) queued', message_uuid: ['db3ce55a-7f1d-11e1-8ea7-1231380bc196'] } },
      { status: 429, body: { error: 'too many requests' } },
      { status: 400, body: { api_id: 'a2', error: 'dst parameter is invalid' } },
    );
    expect(await send(plivo, sms, '+4915112345678', cfg)).toEqual({ ok: true, vendorMessageId: 'db3ce55a-7f1d-11e1-8ea7-1231380bc196' });
    expect(lastRequest()).toMatchObject({
      method: 'POST',
      path: '/v1/Account/MAXXXXXXXXXXXXXXXXXX/Message/',
      headers: { authorization: `Basic ${Buffer.from('MAXXXXXXXXXXXXXXXXXX:pl-token').toString('base64')}`, 'content-type': 'application/json' },
    });
    expect(jsonBody()).toEqual({ src: '+14155550100', dst: '+4915112345678', text: 'Your code is 1234' });
    expect(await send(plivo, sms, '+4915112345678', cfg)).toMatchObject({ ok: false, retryable: true });
    expect(await send(plivo, sms, '+49', cfg)).toMatchObject({ ok: false, retryable: false, reason: expect.stringContaining('dst parameter is invalid') });
  });
});

describe('sms vendors: per-message status callbacks', () => {
  const callbacks = new StatusCallbackUrls('https://herald.example.com/');
  const url = 'https://herald.example.com/v1/vendor-callbacks/v1/';

  it('name the public callback route of their configuration (Twilio StatusCallback, Vonage callback, Plivo url), only when it can be verified', async () => {
    server.respond({ status: 201, body: { sid: 'SM1' } }, { status: 200, body: { messages: [{ status: '0', 'message-id': 'vn-1' }] } }, { status: 200, body: { messages: [{ status: '0', 'message-id': 'vn-2' }] } }, {
      status: 202,
      body: { message_uuid: ['p-1'] },
    });
    await send(new TwilioVendor(http, callbacks), sms, '+4915112345678', config('sms', 'twilio', { account_sid: `AC${'a'.repeat(32)}`, auth_token: 't', from: '+14155550100' }));
    expect(formBody()).toMatchObject({ StatusCallback: url });
    await send(new VonageVendor(http, callbacks), sms, '+4915112345678', config('sms', 'vonage', { api_key: 'vk', api_secret: 'vs', from: 'Acme', signature_secret: 'sig' }));
    expect(formBody()).toMatchObject({ callback: url });
    // Without the signature secret Herald would refuse Vonage's receipts: none is asked for.
    await send(new VonageVendor(http, callbacks), sms, '+4915112345678', config('sms', 'vonage', { api_key: 'vk', api_secret: 'vs', from: 'Acme' }));
    expect(formBody().callback).toBeUndefined();
    await send(new PlivoVendor(http, callbacks), sms, '+4915112345678', config('sms', 'plivo', { auth_id: 'MA', auth_token: 't', from: '+14155550100' }));
    expect(jsonBody()).toMatchObject({ url, method: 'POST' });
  });
});

describe('chat vendors', () => {
  const slackContent: RenderedContent = { channel: 'slack', text: 'Deploy done', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*done*' } }] };

  it('slack: chat.postMessage to a channel, or to a member (user_id, or email through users.lookupByEmail) in the DM conversations.open gives', async () => {
    const slack = new SlackVendor(http);
    const cfg = config('slack', 'slack', { bot_token: 'xoxb-bot' });
    server.respond({ status: 200, body: { ok: true, channel: { id: 'D1' } } }, { status: 200, body: { ok: true, ts: '1.1' } });
    expect(await send(slack, slackContent, { user_id: 'U1', access_token: 'xoxb-user' }, cfg)).toEqual({ ok: true, vendorMessageId: '1.1' });
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/conversations.open', headers: { authorization: 'Bearer xoxb-user' } });
    expect(JSON.parse(server.requests[0].body)).toEqual({ users: 'U1' });
    expect(lastRequest()).toMatchObject({ path: '/chat.postMessage', headers: { authorization: 'Bearer xoxb-user' } });
    expect(jsonBody()).toEqual({ channel: 'D1', text: 'Deploy done', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*done*' } }] });

    server.respond({ status: 200, body: { ok: true, user: { id: 'U42' } } }, { status: 200, body: { ok: true, channel: { id: 'D42' } } }, { status: 200, body: { ok: true, ts: '1.2' } });
    expect(await send(slack, slackContent, { email: 'ada@example.com', access_token: 'xoxb-user' }, cfg)).toEqual({ ok: true, vendorMessageId: '1.2' });
    expect(server.requests[2]).toMatchObject({ method: 'GET', path: '/users.lookupByEmail?email=ada%40example.com' });
    expect(JSON.parse(server.requests[3].body)).toEqual({ users: 'U42' });
    expect(jsonBody()).toMatchObject({ channel: 'D42' });

    // The tokenless entries the SDKs save: the vendor's bot token resolves and sends.
    server.respond({ status: 200, body: { ok: true, user: { id: 'U7' } } }, { status: 200, body: { ok: true, channel: { id: 'D7' } } }, { status: 200, body: { ok: true, ts: '1.3' } });
    expect(await send(slack, slackContent, { email: 'grace@example.com' }, cfg)).toEqual({ ok: true, vendorMessageId: '1.3' });
    expect(server.requests.slice(-3).map((r) => [r.path.split('?')[0], r.headers.authorization])).toEqual([
      ['/users.lookupByEmail', 'Bearer xoxb-bot'],
      ['/conversations.open', 'Bearer xoxb-bot'],
      ['/chat.postMessage', 'Bearer xoxb-bot'],
    ]);
    server.respond({ status: 200, body: { ok: true, ts: '1.4' } });
    await send(slack, slackContent, { channel: 'C1' }, cfg);
    expect(lastRequest()).toMatchObject({ path: '/chat.postMessage', headers: { authorization: 'Bearer xoxb-bot' } });

    // users_not_found is final: the email is no member of the bot's workspace.
    server.respond({ status: 200, body: { ok: false, error: 'users_not_found' } });
    expect(await send(slack, slackContent, { email: 'nobody@example.com' }, cfg)).toEqual({ ok: false, retryable: false, reason: 'slack: users_not_found' });
  });

  it('slack: ratelimited and 5xx are retryable, channel_not_found permanent; incoming webhooks are posted as is', async () => {
    const slack = new SlackVendor(http);
    const cfg = config('slack', 'slack', {});
    server.respond({ status: 429, body: { ok: false, error: 'ratelimited' } }, { status: 200, body: { ok: false, error: 'channel_not_found' } });
    expect(await send(slack, slackContent, { channel: 'C1', access_token: 'xoxb-1' }, cfg)).toMatchObject({ ok: false, retryable: true });
    expect(await send(slack, slackContent, { channel: 'C1', access_token: 'xoxb-1' }, cfg)).toEqual({ ok: false, retryable: false, reason: 'slack: channel_not_found' });
    server.respond({ status: 200, body: 'ok' });
    expect(await send(slack, slackContent, { incoming_webhook: { url: `${server.url}/hooks/T1` } }, cfg)).toEqual({ ok: true });
    expect(lastRequest().path).toBe('/hooks/T1');
    expect(jsonBody()).toMatchObject({ text: 'Deploy done' });
  });

  it('ms teams: an Adaptive Card attachment to the incoming webhook; 429 retryable, 400 permanent', async () => {
    const teams = new MsTeamsVendor(http);
    const cfg = config('ms_teams', 'ms_teams', {});
    const card = { type: 'AdaptiveCard', version: '1.4', body: [{ type: 'TextBlock', text: 'done' }] };
    const identity = { incoming_webhook: { url: `${server.url}/webhookb2/x` } };
    server.respond({ status: 200, body: '1' }, { status: 429 }, { status: 400, body: 'Bad payload' });
    expect(await send(teams, { channel: 'ms_teams', text: 'done', card }, identity, cfg)).toEqual({ ok: true });
    expect(lastRequest().path).toBe('/webhookb2/x');
    expect(jsonBody()).toEqual({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }] });
    expect(await send(teams, { channel: 'ms_teams', text: 'done' }, identity, cfg)).toMatchObject({ ok: false, retryable: true });
    expect(await send(teams, { channel: 'ms_teams', text: 'done' }, identity, cfg)).toMatchObject({ ok: false, retryable: false });
  });
});

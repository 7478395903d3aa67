import { randomBytes } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { expectEventually, fetchJson, heraldEnv } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { heraldModes } from './testing/herald-modes';

interface Mail {
  readonly to: readonly string[];
  readonly raw: string;
}

/**
 * The whole of Herald as a user meets it: definitions through the management API, a
 * trigger through REST, the run in the engine, and the message in a local SMTP server
 * (configured as the workspace's email vendor) and in the inbox API.
 */
describe.each(heraldModes('pipeline'))('a notification from trigger to inbox and mailbox ($name)', (mode) => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  const workspaceKey = `hwk_${randomBytes(16).toString('hex')}`;
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;
  let smtp: SMTPServer;
  const mails: Mail[] = [];

  const management = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    smtp = new SMTPServer({
      secure: false,
      closeTimeout: 100,
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      onAuth: (auth, _session, callback) => (auth.password === 'smtp-pass' ? callback(null, { user: auth.username }) : callback(new Error('invalid credentials'))),
      onData: (stream, session, callback) => {
        let raw = '';
        stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
        stream.on('end', () => {
          mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const smtpPort = (smtp.server.address() as AddressInfo).port;

    const prepared = await mode.prepare();
    dispose = prepared.dispose;
    herald = await startEmbeddedHerald(
      heraldEnv({
        ...prepared.env,
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_API_KEY: apiKey,
        HERALD_BOOTSTRAP_WORKSPACE_KEY: workspaceKey,
        HERALD_OUTBOUND_ALLOW: '127.0.0.0/8',
        HERALD_LOG_LEVEL: 'error',
      }),
    );

    const ok = (response: { status: number; body: unknown }): void => expect({ success: response.status >= 200 && response.status < 300, body: response.body }).toMatchObject({ success: true });
    ok(
      await management('POST', 'v1/staging/preference_category/', {
        root_categories: [{ root_category: 'transactional', sections: [{ name: 'Account', categories: [{ category: 'account', name: 'Account', default_preference: 'opt_in' }] }] }],
      }),
    );
    ok(await management('PATCH', 'v1/staging/preference_category/commit/?commit_message=c'));
    ok(await management('POST', 'v2/staging/template/welcome/', { name: 'Welcome', enabled_channels: ['email', 'inbox'] }));
    ok(
      await management('POST', 'v2/staging/template/welcome/channel/email/variant/default/', {
        locale: 'en',
        content: { subject: 'Welcome aboard, {{name}}!', text: 'Hi {{name}}, your plan is {{plan}}.', from: 'hello@example.com' },
      }),
    );
    ok(await management('POST', 'v2/staging/template/welcome/channel/inbox/variant/default/', { locale: 'en', content: { body: 'Welcome, {{name}}' } }));
    ok(await management('PATCH', 'v2/staging/template/welcome/commit/?commit_message=t'));
    ok(
      await management('PUT', 'v1/staging/vendor/email/smtp/', {
        priority: 1,
        credentials: { host: '127.0.0.1', port: smtpPort, secure: false, username: 'herald', password: 'smtp-pass', from: 'hello@example.com' },
      }),
    );
    ok(
      await management('POST', 'v1/staging/workflow/welcome/', {
        name: 'Welcome',
        category: 'account',
        trigger_type: 'api',
        tree: {
          nodes: [
            { name: 'Mail', node_type: 'send_email', template: 'welcome' },
            { name: 'Inbox', node_type: 'send_inbox', template: 'welcome' },
          ],
        },
      }),
    );
    ok(await management('PATCH', 'v1/staging/workflow/welcome/commit/?commit_message=w'));
  });

  afterAll(async () => {
    await herald?.stop();
    await dispose?.();
    await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
  });

  it('delivers a REST trigger to the SMTP server with the rendered subject, and to the inbox API', async () => {
    // The workflow reaches ingest and the engine through the bus: retry until it is known.
    let messageId = '';
    await expectEventually(
      async () => {
        const response = await api('POST', 'trigger/', {
          workflow: 'welcome',
          recipients: [{ distinct_id: 'ada', $email: ['ada@example.com'], name: 'Ada' }],
          data: { name: 'Ada', plan: 'pro' },
        });
        expect(response.status).toBe(202);
        messageId = (response.body as { message_id: string }).message_id;
      },
      { timeoutMs: 30_000 },
    );
    await expectEventually(() => expect(mails.length).toBeGreaterThanOrEqual(1), { timeoutMs: 60_000 });
    expect(mails[0].to).toEqual(['ada@example.com']);
    expect(mails[0].raw).toMatch(/^Subject: Welcome aboard, Ada!/m);
    expect(mails[0].raw).toContain('your plan is pro');
    await expectEventually(
      async () => {
        const inbox = await api('GET', 'v1/user/ada/inbox/');
        expect(inbox.status).toBe(200);
        expect(JSON.stringify(inbox.body)).toContain('Welcome, Ada');
      },
      { timeoutMs: 60_000 },
    );
    // The message log follows the email's outcome.
    await expectEventually(
      async () => {
        const log = await api('GET', `v1/message/?channel=email&recipient_id[]=ada`);
        expect((log.body as { results: Array<{ status: string }> }).results).toEqual([expect.objectContaining({ status: 'sent_by_vendor' })]);
      },
      { timeoutMs: 30_000 },
    );
    expect(messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(mails).toHaveLength(1);
  });

  it('broadcasts a template to every member of a subscriber list, on their stored channels', async () => {
    for (const member of ['bea', 'cal']) {
      await expectEventually(async () => expect((await api('POST', `v1/user/${member}/`, { $email: [`${member}@example.com`], name: member })).status).toBe(201));
    }
    expect((await api('POST', 'v1/subscriber_list/', { list_id: 'newsletter' })).status).toBe(201);
    expect((await api('POST', 'v1/subscriber_list/newsletter/subscriber/add/', { distinct_ids: ['bea', 'cal'] })).status).toBe(201);
    const broadcast = await api('POST', `${workspaceKey}/broadcast/`, {
      list_id: 'newsletter',
      template: 'welcome',
      notification_category: 'account',
      channels: ['email'],
      data: { name: 'reader', plan: 'news' },
    });
    expect(broadcast).toEqual({ status: 202, body: { message: 'Accepted - OK' } });
    const to = (): string[] => mails.flatMap((m) => m.to).filter((address) => address !== 'ada@example.com').sort();
    await expectEventually(() => expect(to()).toEqual(['bea@example.com', 'cal@example.com']), { timeoutMs: 60_000 });
    expect(mails.filter((m) => m.to.includes('bea@example.com'))[0].raw).toMatch(/^Subject: Welcome aboard, reader!/m);
  });
});

import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { deterministicUuid } from '@herald/contracts';
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

    // The nodes that wait and accumulate (issue 8), each sending a template of its own.
    const emailTemplate = async (slug: string, subject: string, text: string): Promise<void> => {
      ok(await management('POST', `v2/staging/template/${slug}/`, { name: slug, enabled_channels: ['email'] }));
      ok(await management('POST', `v2/staging/template/${slug}/channel/email/variant/default/`, { locale: 'en', content: { subject, text, from: 'hello@example.com' } }));
      ok(await management('PATCH', `v2/staging/template/${slug}/commit/?commit_message=t`));
    };
    const workflow = async (slug: string, nodes: unknown[]): Promise<void> => {
      ok(await management('POST', `v1/staging/workflow/${slug}/`, { name: slug, category: 'account', trigger_type: 'api', tree: { nodes } }));
      ok(await management('PATCH', `v1/staging/workflow/${slug}/commit/?commit_message=w`));
    };
    await emailTemplate('updates-mail', '{{$batched_events_count}} updates in {{project}}', '{{#each $batched_events}}#{{n}}\n{{/each}}');
    await emailTemplate('thanks-mail', 'Thanks for paying', 'Paid.');
    await emailTemplate('reminder-mail', 'Your order is waiting', 'Not paid yet.');
    await workflow('updates', [
      { name: 'Collect', node_type: 'batch', mode: 'accumulate_all', window_type: 'fixed', fixed_window: '0d1h0m0s', batch_key: '.project', retain_count: 100 },
      { name: 'Mail', node_type: 'send_email', template: 'updates-mail' },
    ]);
    await workflow('checkout', [
      {
        name: 'Paid?',
        node_type: 'branch_waituntil',
        branches: [
          {
            name: 'paid',
            is_default: false,
            conditions: [{ type: 'future_event', event_name: 'order_paid', event_conditions: [{ variable_ns: '$future_event', variable: 'order_id', op: '==', value: 'o-1' }] }],
            nodes: [{ name: 'Thanks', node_type: 'send_email', template: 'thanks-mail' }],
          },
          {
            name: 'unpaid',
            is_default: true,
            conditions: [{ type: 'delay', delay_properties: { delay_type: 'fixed', value: '0d1h0m0s' } }],
            nodes: [{ name: 'Reminder', node_type: 'send_email', template: 'reminder-mail' }],
          },
        ],
      },
    ]);
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

  const mailsTo = (address: string, subject?: RegExp): Mail[] => mails.filter((mail) => mail.to.includes(address) && (subject === undefined || subject.test(mail.raw)));
  const sql = async <T>(text: string, params: unknown[] = []): Promise<T[]> => {
    const client = new Client({ connectionString: herald.databaseUrl });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as T[];
    } finally {
      await client.end();
    }
  };
  /**
   * Ends now the windows these runs own (batch windows, maximum waits) by making their
   * timers due by the database clock the poller reads: the windows are an hour long, so
   * none closes before the test's triggers are in, however loaded the machine.
   */
  const fireTimersNow = async (runIds: readonly string[]): Promise<number> =>
    (await sql<{ timer_id: string }>(`UPDATE engine.timers SET due_at = now() WHERE split_part(stream_id, ':', 3) = ANY($1::text[]) RETURNING timer_id`, [runIds])).length;
  const runsIn = async (runIds: readonly string[], types: readonly string[]): Promise<number> =>
    (await sql<{ n: number }>(`SELECT count(DISTINCT stream_id)::int AS n FROM engine.stream_events WHERE split_part(stream_id, ':', 3) = ANY($1::text[]) AND type = ANY($2::text[])`, [runIds, types]))[0].n;
  /**
   * Nothing more is coming to this address: a welcome email triggered now for the same
   * recipient travels the same keys (run, delivery command, dispatcher) behind everything
   * sent to it before, so once it is in the mailbox, they are too.
   */
  const markerMailed = async (distinctId: string): Promise<void> => {
    const response = await api('POST', 'trigger/', { workflow: 'welcome', recipients: [{ distinct_id: distinctId, $email: [`${distinctId}@example.com`] }], data: { name: 'marker', plan: 'marker' } });
    expect(response.status).toBe(202);
    await expectEventually(() => expect(mailsTo(`${distinctId}@example.com`, /^Subject: Welcome aboard, marker!/m)).toHaveLength(1), { timeoutMs: 60_000 });
  };
  /** REST trigger of one recipient; retried while ingest does not know the workflow yet. Returns the run's execution id. */
  const triggerRun = async (workflow: string, distinctId: string, data: Record<string, unknown>): Promise<string> => {
    let messageId = '';
    await expectEventually(
      async () => {
        const response = await api('POST', 'trigger/', { workflow, recipients: [{ distinct_id: distinctId, $email: [`${distinctId}@example.com`] }], data });
        expect(response.status).toBe(202);
        messageId = (response.body as { message_id: string }).message_id;
      },
      { timeoutMs: 30_000 },
    );
    return deterministicUuid(messageId, '0');
  };

  it('batches 50 REST triggers of one recipient and batch key into one email holding all 50, and 3 batch keys into 3 emails', async () => {
    await triggerRun('updates', 'probe', { project: 'probe', n: 0 });
    const sent = await Promise.all([
      ...Array.from({ length: 50 }, (_, n) => api('POST', 'trigger/', { workflow: 'updates', recipients: [{ distinct_id: 'ben', $email: ['ben@example.com'] }], data: { project: 'apollo', n } })),
      ...['apollo', 'gemini', 'mercury'].flatMap((project) =>
        Array.from({ length: 4 }, (_, n) => api('POST', 'trigger/', { workflow: 'updates', recipients: [{ distinct_id: 'kim', $email: ['kim@example.com'] }], data: { project, n } })),
      ),
    ]);
    expect(sent.map((response) => response.status)).toEqual(Array.from({ length: 62 }, () => 202));
    const runs = sent.map((response) => deterministicUuid((response.body as { message_id: string }).message_id, '0'));
    // All 62 are in their windows (1 + 3 owners, 58 merged) before the test closes them.
    await expectEventually(async () => expect(await runsIn(runs, ['accumulation.owned.v1', 'accumulation.merged.v1'])).toBe(62), { timeoutMs: 60_000 });
    expect([mailsTo('ben@example.com').length, mailsTo('kim@example.com').length]).toEqual([0, 0]);
    expect(await fireTimersNow(runs)).toBe(4);
    await expectEventually(() => expect([mailsTo('ben@example.com').length, mailsTo('kim@example.com').length]).toEqual([1, 3]), { timeoutMs: 60_000 });
    const numbers = (mail: Mail): number[] => [...mail.raw.matchAll(/^#(\d+)\r?$/gm)].map((match) => Number(match[1])).sort((a, b) => a - b);
    const [ben] = mailsTo('ben@example.com');
    expect(ben.raw).toMatch(/^Subject: 50 updates in apollo/m);
    expect(numbers(ben)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    const kim = mailsTo('kim@example.com');
    expect(kim.map((mail) => /^Subject: (.*)$/m.exec(mail.raw)?.[1].trim()).sort()).toEqual(['4 updates in apollo', '4 updates in gemini', '4 updates in mercury']);
    for (const mail of kim) expect(numbers(mail)).toEqual([0, 1, 2, 3]);
    // Nothing follows: each window was sent once.
    await markerMailed('ben');
    await markerMailed('kim');
    expect([mailsTo('ben@example.com', /updates in/).length, mailsTo('kim@example.com', /updates in/).length]).toEqual([1, 3]);
  });

  it('resumes a wait-until on a matching REST event, not on one whose conditions fail, and times out without one', async () => {
    const paid = await triggerRun('checkout', 'wen', {});
    const unpaid = await triggerRun('checkout', 'wes', {});
    // Only an event that comes after the run reached the node counts.
    await expectEventually(async () => {
      const detail = await api('GET', `v1/workflow_run/${paid}/`);
      expect((detail.body as { steps?: Array<{ type: string }> }).steps?.map((step) => step.type)).toContain('wait.started.v1');
    });
    expect((await api('POST', 'event/', { distinct_id: 'wen', event: 'order_paid', properties: { order_id: 'o-2' } })).status).toBe(202);
    expect((await api('POST', 'event/', { distinct_id: 'wen', event: 'order_paid', properties: { order_id: 'o-1' } })).status).toBe(202);
    await expectEventually(() => expect(mailsTo('wen@example.com')).toHaveLength(1), { timeoutMs: 30_000 });
    expect(mailsTo('wen@example.com')[0].raw).toMatch(/^Subject: Thanks for paying/m);
    // The maximum wait is an hour, so wen's events beat it on any machine; the test ends wes's wait now.
    await expectEventually(async () => expect(await runsIn([unpaid], ['wait.started.v1'])).toBe(1), { timeoutMs: 30_000 });
    expect(mailsTo('wes@example.com')).toEqual([]);
    expect(await fireTimersNow([unpaid])).toBe(1);
    await expectEventually(() => expect(mailsTo('wes@example.com')).toHaveLength(1), { timeoutMs: 60_000 });
    expect(mailsTo('wes@example.com')[0].raw).toMatch(/^Subject: Your order is waiting/m);
    // wen's wait ended with the event, its timer gone: a later mail to wen finds no reminder before it.
    await markerMailed('wen');
    expect(mailsTo('wen@example.com', /^Subject: (Thanks for paying|Your order is waiting)/m).map((mail) => /^Subject: (.*)$/m.exec(mail.raw)?.[1].trim())).toEqual(['Thanks for paying']);
  });
});

import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expectEventually, fetchJson, heraldEnv } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { heraldModes } from './testing/herald-modes';

interface RunMessage {
  readonly message_id: string;
  readonly channel: string;
  readonly status: string;
  readonly failure_reason: string;
  readonly attempts: number;
  readonly next_attempt_at: string | null;
  readonly triggered_at: string | null;
}

interface FollowedRun {
  readonly execution_id: string;
  readonly message_id: string;
  readonly status: string;
  readonly reason: string | null;
  readonly recipient: { readonly distinct_id?: string };
  readonly messages: readonly RunMessage[];
}

/**
 * A new user's first hour (issue 18): a fresh workspace's first workflow names a default
 * category, and the `message_id` POST /trigger/ answers leads to every recipient's
 * outcome (sent, not sent and why, failed before sending and why) through the API.
 */
describe.each(heraldModes('follow'))('following a trigger in a fresh workspace ($name)', (mode) => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;

  const management = (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const api = (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const ok = (response: { status: number; body: unknown }): void =>
    expect({ success: response.status >= 200 && response.status < 300, body: response.body }).toMatchObject({ success: true });

  const runsOf = async (messageId: string): Promise<FollowedRun[]> => {
    const response = await api('GET', `v1/workflow_run/?message_id=${messageId}`);
    expect(response.status).toBe(200);
    return (response.body as { results: FollowedRun[] }).results;
  };

  beforeAll(async () => {
    const prepared = await mode.prepare();
    dispose = prepared.dispose;
    herald = await startEmbeddedHerald(
      heraldEnv({
        ...prepared.env,
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_API_KEY: apiKey,
        HERALD_LOG_LEVEL: 'error',
        HERALD_OUTBOUND_ALLOW: '127.0.0.0/8',
      }),
    );
    ok(await management('POST', 'v2/staging/template/hello/', { name: 'Hello', enabled_channels: ['email', 'inbox'] }));
    ok(await management('POST', 'v2/staging/template/hello/channel/email/variant/default/', { locale: 'en', content: { subject: 'Hi {{name}}', text: 'Hi {{name}}' } }));
    ok(await management('POST', 'v2/staging/template/hello/channel/inbox/variant/default/', { locale: 'en', content: { body: 'Hi {{name}}' } }));
    ok(await management('PATCH', 'v2/staging/template/hello/commit/?commit_message=t'));
  });

  afterAll(async () => {
    await herald?.stop();
    await dispose?.();
  });

  it('starts with the default categories live, and refuses an unknown one at save with the valid slugs', async () => {
    const live = await management('GET', 'v1/staging/preference_category/?mode=live');
    expect(live.status).toBe(200);
    const slugs = (live.body as { root_categories: Array<{ sections: Array<{ categories: Array<{ category: string }> }> }> }).root_categories.flatMap((root) =>
      root.sections.flatMap((section) => section.categories.map((c) => c.category)),
    );
    expect(slugs).toEqual(['system', 'transactional', 'promotional']);

    const refused = await management('POST', 'v1/staging/workflow/typo/', { name: 'Typo', category: 'transactionl', trigger_type: 'api', tree: { nodes: [] } });
    expect(refused.status).toBe(400);
    expect((refused.body as { detail: string }).detail).toContain('must be one of promotional, system, transactional');
  });

  it("follows a trigger's message_id to every recipient's runs and messages: sent, and not sent with the reason", async () => {
    // The first workflow of a fresh workspace, in the category SuprSend users write.
    ok(
      await management('POST', 'v1/staging/workflow/hello/?commit=true&commit_message=first', {
        name: 'Hello',
        category: 'transactional',
        trigger_type: 'api',
        tree: {
          nodes: [
            { name: 'Mail', node_type: 'send_email', template: 'hello' },
            { name: 'Inbox', node_type: 'send_inbox', template: 'hello' },
          ],
        },
      }),
    );
    let messageId = '';
    await expectEventually(async () => {
      const response = await api('POST', 'trigger/', {
        workflow: 'hello',
        recipients: [{ distinct_id: 'ada', $email: ['ada@example.com'], name: 'Ada' }, { distinct_id: 'nobody', name: 'Nobody' }],
        data: { name: 'you' },
        $idempotency_key: 'follow-me',
      });
      expect(response.status).toBe(202);
      messageId = (response.body as { message_id: string }).message_id;
    });

    // The trigger's id is not a run's: the 404 says where its runs are.
    await expectEventually(async () => expect((await runsOf(messageId)).length).toBe(2));
    const notARun = await api('GET', `v1/workflow_run/${messageId}/`);
    expect(notARun.status).toBe(404);
    expect((notARun.body as { detail: string }).detail).toContain(`/v1/workflow_run/?message_id=${messageId}`);

    await expectEventually(async () => {
      const runs = await runsOf(messageId);
      const ada = runs.find((run) => run.recipient.distinct_id === 'ada');
      const nobody = runs.find((run) => run.recipient.distinct_id === 'nobody');
      expect(ada).toMatchObject({ message_id: messageId, status: 'completed', reason: null });
      // No vendor is configured for email: it fails with the reason; the inbox needs none.
      expect(ada?.messages).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ channel: 'email', status: 'delivery_failure', failure_reason: expect.stringContaining('no vendor is configured') }),
          expect.objectContaining({ channel: 'inbox', status: 'delivered', triggered_at: expect.any(String) }),
        ]),
      );
      // No $email: the email is not sent, and the row says why.
      expect(nobody?.messages).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ channel: 'email', status: 'not_sent', failure_reason: expect.stringMatching(/^no_identity: /) }),
          expect.objectContaining({ channel: 'inbox', status: 'delivered' }),
        ]),
      );
    });

    // The message log finds the same rows by the trigger's message_id, and by the idempotency key.
    const byTrigger = await api('GET', `v1/message/?message_id=${messageId}&limit=100`);
    expect(byTrigger.status).toBe(200);
    const rows = (byTrigger.body as { results: Array<{ status: string; channel: string; recipient: { distinct_id: string }; trigger_message_id: string }> }).results;
    expect(rows.map((row) => `${row.recipient.distinct_id}/${row.channel}/${row.status}`).sort()).toEqual([
      'ada/email/delivery_failure',
      'ada/inbox/delivered',
      'nobody/email/not_sent',
      'nobody/inbox/delivered',
    ]);
    expect(new Set(rows.map((row) => row.trigger_message_id))).toEqual(new Set([messageId]));
    const notSent = await api('GET', `v1/message/?idempotency_key=follow-me&status[]=not_sent`);
    expect((notSent.body as { results: Array<{ recipient: { distinct_id: string } }> }).results.map((row) => row.recipient.distinct_id)).toEqual(['nobody']);
  });

  it('accepts a trigger sent the moment its workflow and template are committed, and runs the new version', async () => {
    // No retry anywhere: each commit answers once the notification API sees the new version.
    ok(await management('POST', 'v2/staging/template/fresh/', { name: 'Fresh', enabled_channels: ['inbox'] }));
    ok(await management('POST', 'v2/staging/template/fresh/channel/inbox/variant/default/', { locale: 'en', content: { body: 'Fresh {{n}}' } }));
    ok(await management('PATCH', 'v2/staging/template/fresh/commit/?commit_message=t'));
    for (const version of [1, 2]) {
      ok(
        await management('POST', 'v1/staging/workflow/fresh/?commit=true&commit_message=now', {
          name: `Fresh v${version}`,
          category: 'transactional',
          trigger_type: 'api',
          tree: { nodes: [{ name: `Inbox v${version}`, node_type: 'send_inbox', template: 'fresh' }] },
        }),
      );
      const response = await api('POST', 'trigger/', { workflow: 'fresh', recipients: ['ada'], data: { n: version } });
      expect(response.status).toBe(202);
      const messageId = (response.body as { message_id: string }).message_id;
      await expectEventually(async () => {
        const [run] = await runsOf(messageId);
        expect(run).toMatchObject({ status: 'completed', messages: [expect.objectContaining({ channel: 'inbox', status: 'delivered' })] });
        const detail = await api('GET', `v1/workflow_run/${run.execution_id}/`);
        expect(detail.body).toMatchObject({ workflow: { slug: 'fresh', version } });
      });
    }
  });

  it('deletes a workflow: a new trigger is refused, a run waiting on a delay finishes on the version it started with', async () => {
    ok(
      await management('POST', 'v1/staging/workflow/doomed/?commit=true&commit_message=first', {
        name: 'Doomed',
        category: 'transactional',
        trigger_type: 'api',
        tree: {
          nodes: [
            { name: 'Wait for it', node_type: 'delay', delay_type: 'dynamic', duration: '.wait' },
            { name: 'Inbox', node_type: 'send_inbox', template: 'hello' },
          ],
        },
      }),
    );
    let messageId = '';
    await expectEventually(async () => {
      const response = await api('POST', 'trigger/', { workflow: 'doomed', recipients: ['ada'], data: { wait: '8s', name: 'Ada' } });
      expect(response.status).toBe(202);
      messageId = (response.body as { message_id: string }).message_id;
    });
    // The run has started and is waiting on its delay when the workflow goes.
    await expectEventually(async () => expect(await runsOf(messageId)).toEqual([expect.objectContaining({ messages: [] })]));
    const [waiting] = await runsOf(messageId);
    expect(waiting.status).not.toBe('completed');

    const deleted = await management('DELETE', 'v1/staging/workflow/doomed/');
    expect(deleted.status).toBe(204);
    expect((await management('GET', 'v1/staging/workflow/doomed/')).status).toBe(404);
    expect((await management('DELETE', 'v1/staging/workflow/doomed/')).status).toBe(404);
    // The delete answers once ingest knows: the very next trigger is refused, as for a workflow never created.
    const refused = await api('POST', 'trigger/', { workflow: 'doomed', recipients: ['ada'], data: { wait: '1s' } });
    expect(refused).toMatchObject({ status: 404, body: { detail: "workflow 'doomed' not found" } });

    await expectEventually(
      async () => {
        const [run] = await runsOf(messageId);
        expect(run).toMatchObject({ status: 'completed', messages: [expect.objectContaining({ channel: 'inbox', status: 'delivered' })] });
        const detail = await api('GET', `v1/workflow_run/${run.execution_id}/`);
        expect(detail.body).toMatchObject({ workflow: { slug: 'doomed', version: 1 } });
      },
      { timeoutMs: 30_000 },
    );
  });

  it("refuses a trigger whose data breaks its workflow's schema, naming each failing path", async () => {
    const orderSchema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      required: ['order_id', 'amount'],
      properties: { order_id: { type: 'string' }, amount: { type: 'number', minimum: 0 }, items: { type: 'array', items: { type: 'object', required: ['sku'] } } },
    };
    ok(await management('POST', 'v1/staging/schema/order-placed/?commit=true&commit_message=first', { name: 'Order placed', json_schema: orderSchema }));
    ok(
      await management('POST', 'v1/staging/workflow/checked/?commit=true&commit_message=first', {
        name: 'Checked',
        category: 'transactional',
        trigger_type: 'api',
        payload_schema: { schema: 'order-placed' },
        tree: { nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'hello' }] },
      }),
    );
    // Both commits answer once ingest has them: no retry.
    const refused = await api('POST', 'trigger/', { workflow: 'checked', recipients: ['ada'], data: { amount: -1, items: [{ sku: 'A' }, {}] } });
    expect(refused.status).toBe(400);
    expect((refused.body as { detail: string }).detail).toBe('data.order_id: is required; data.items[1].sku: is required; data.amount: must be >= 0');
    const accepted = await api('POST', 'trigger/', { workflow: 'checked', recipients: ['ada'], data: { order_id: 'A-1', amount: 3, name: 'Ada' } });
    expect(accepted.status).toBe(202);

    // A new live version of the schema applies to the next trigger.
    ok(await management('POST', 'v1/staging/schema/order-placed/?commit=true&commit_message=looser', { name: 'Order placed', json_schema: { type: 'object' } }));
    expect((await api('POST', 'trigger/', { workflow: 'checked', recipients: ['ada'], data: { amount: -1 } })).status).toBe(202);
  });

  it("refuses an event whose properties break the event's linked schema, naming each failing path", async () => {
    ok(await management('POST', 'v1/staging/schema/signup/?commit=true&commit_message=first', { name: 'Signup', json_schema: { type: 'object', required: ['plan'], properties: { plan: { type: 'string' } } } }));
    ok(await management('POST', 'v1/staging/event/', { name: 'user signup', payload_schema: { schema: 'signup' } }));
    // The link answers once ingest has it: no retry.
    const refused = await api('POST', 'event/', { distinct_id: 'ada', event: 'user signup', properties: { plan: 3 } });
    expect(refused.status).toBe(400);
    expect((refused.body as { detail: string }).detail).toBe('properties.plan: must be string');
    expect((await api('POST', 'event/', { distinct_id: 'ada', event: 'user signup', properties: { plan: 'pro' } })).status).toBe(202);

    // Once delinked, nothing checks it.
    ok(await management('PATCH', 'v1/staging/event/user%20signup/delink_schema/'));
    expect((await api('POST', 'event/', { distinct_id: 'ada', event: 'user signup', properties: { plan: 3 } })).status).toBe(202);
  });

  it('shows why a run failed before sending anything', async () => {
    ok(
      await management('POST', 'v1/staging/workflow/late/?commit=true&commit_message=first', {
        name: 'Late',
        category: 'transactional',
        trigger_type: 'api',
        tree: {
          nodes: [
            { name: 'Wait for it', node_type: 'delay', delay_type: 'dynamic', duration: '.wait' },
            { name: 'Inbox', node_type: 'send_inbox', template: 'hello' },
          ],
        },
      }),
    );
    let messageId = '';
    await expectEventually(async () => {
      const response = await api('POST', 'trigger/', { workflow: 'late', recipients: ['ada'], data: { wait: 'not a duration' } });
      expect(response.status).toBe(202);
      messageId = (response.body as { message_id: string }).message_id;
    });
    // The run shows why, and the message log shows the recipient: not sent, naming the failed node.
    const notSent = expect.objectContaining({ channel: 'inbox', status: 'not_sent', failure_reason: expect.stringMatching(/^run_failed: Wait for it \(nodes\[0\]\): /) });
    await expectEventually(async () => {
      const [run] = await runsOf(messageId);
      expect(run).toMatchObject({ status: 'failed', reason: expect.stringContaining('Wait for it'), messages: [notSent] });
    });
    const log = await api('GET', `v1/message/?message_id=${messageId}`);
    expect(log.status).toBe(200);
    expect((log.body as { results: unknown[] }).results).toEqual([
      expect.objectContaining({ status: 'not_sent', trigger_message_id: messageId, recipient: { $type: 'user', distinct_id: 'ada' }, template: { slug: 'hello' } }),
    ]);
    expect((log.body as { results: unknown[] }).results).toEqual([notSent]);
  });

  it('shows a delivery that is being retried: its attempts, the next try and why the last one failed', async () => {
    // An SMTP server that refuses connections: a failure that may pass, so the dispatcher retries.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    ok(await management('PUT', 'v1/staging/vendor/email/smtp/', { priority: 1, credentials: { host: '127.0.0.1', port, secure: false, username: 'u', password: 'p', from: 'hello@example.com' } }));
    let messageId = '';
    await expectEventually(async () => {
      const response = await api('POST', 'trigger/', { workflow: 'hello', recipients: [{ distinct_id: 'cy', $email: ['cy@example.com'] }], data: { name: 'Cy' } });
      expect(response.status).toBe(202);
      messageId = (response.body as { message_id: string }).message_id;
    });
    await expectEventually(
      async () => {
        const [run] = await runsOf(messageId);
        expect(run.messages.find((message) => message.channel === 'email')).toMatchObject({
          status: 'triggered',
          attempts: 1,
          next_attempt_at: expect.any(String),
          failure_reason: expect.stringContaining('smtp'),
        });
      },
      { timeoutMs: 30_000 },
    );
    const log = await api('GET', `v1/message/?message_id=${messageId}&channel=email`);
    expect((log.body as { results: unknown[] }).results).toEqual([expect.objectContaining({ status: 'triggered', attempts: 1, next_attempt_at: expect.any(String) })]);
  });

  it('fails a delivery of a strict template whose data lacks a variable, naming it, instead of sending "Hi , ..."', async () => {
    const refused = await management('POST', 'v2/staging/template/strict-hello/', { name: 'Strict hello', strict: 'yes' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('strict');
    ok(await management('POST', 'v2/staging/template/strict-hello/', { name: 'Strict hello', enabled_channels: ['inbox'], strict: true }));
    ok(await management('POST', 'v2/staging/template/strict-hello/channel/inbox/variant/default/', { locale: 'en', content: { body: 'Hi {{name}}, welcome to {{plan}}' } }));
    const committed = await management('PATCH', 'v2/staging/template/strict-hello/commit/?commit_message=t');
    expect(committed).toMatchObject({ status: 200, body: { strict: true } });
    ok(
      await management('POST', 'v1/staging/workflow/strict-hello/?commit=true&commit_message=first', {
        name: 'Strict hello',
        category: 'transactional',
        trigger_type: 'api',
        tree: { nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'strict-hello' }] },
      }),
    );
    const inboxMessageOf = async (data: Record<string, string>): Promise<RunMessage | undefined> => {
      const response = await api('POST', 'trigger/', { workflow: 'strict-hello', recipients: ['ada'], data });
      expect(response.status).toBe(202);
      const messageId = (response.body as { message_id: string }).message_id;
      let message: RunMessage | undefined;
      await expectEventually(async () => {
        [message] = (await runsOf(messageId))[0]?.messages ?? [];
        expect(message?.status).toMatch(/^(delivered|delivery_failure)$/);
      });
      return message;
    };
    expect(await inboxMessageOf({ name: 'Ada' })).toMatchObject({
      status: 'delivery_failure',
      attempts: 1,
      next_attempt_at: null,
      failure_reason: 'strict template: the data has no value for body: plan',
    });
    expect(await inboxMessageOf({ name: 'Ada', plan: 'Pro' })).toMatchObject({ status: 'delivered', failure_reason: '' });
  });

  it('refuses an unknown run status filter, listing the valid ones', async () => {
    const response = await api('GET', 'v1/workflow_run/?status=done');
    expect(response.status).toBe(400);
    expect((response.body as { detail: string }).detail).toContain('status: unknown status done: must be one of running, completed, failed, discarded, cancelled');
  });
});

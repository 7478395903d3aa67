import { randomBytes } from 'node:crypto';
import { OpenApiDocument, expectEventually, fetchJson, heraldEnv, openApiResponseChecker } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { heraldModes } from './testing/herald-modes';

interface LoggedMessage {
  readonly channel: string;
  readonly status: string;
  readonly warnings: unknown[];
}

/**
 * A placeholder the trigger's data has no value for renders empty (a template that is not
 * strict): the dispatcher names it on the delivery's outcome, and the message log shows
 * it through the API (issue 39), not only in the server's log.
 */
describe.each(heraldModes('warnings'))('a missing template variable in the message log ($name)', (mode) => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;
  let conformance: (method: string, url: string, status: number, body: unknown) => string[];

  const management = async (method: string, path: string, body?: unknown): Promise<void> => {
    const response = await fetchJson(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect({ path, status: response.status < 300 ? 'ok' : response.status, body: response.status < 300 ? undefined : response.body }).toEqual({ path, status: 'ok', body: undefined });
  };
  /** A GET of the notification API whose answer must be the one its OpenAPI description documents. */
  const get = async <T>(path: string): Promise<T> => {
    const url = `${herald.baseUrl}${path}`;
    const response = await fetchJson(url, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(response.status).toBe(200);
    expect(conformance('GET', url, response.status, response.body)).toEqual([]);
    return response.body as T;
  };
  const trigger = async (data: Record<string, unknown>): Promise<string> => {
    const response = await fetchJson(`${herald.baseUrl}trigger/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workflow: 'note', recipients: [{ distinct_id: 'ada', $email: ['ada@example.com'] }], data }),
    });
    expect(response.status).toBe(202);
    return (response.body as { message_id: string }).message_id;
  };
  /** The trigger's messages once each has its final status, by channel. */
  const settledMessages = async (messageId: string): Promise<Record<string, LoggedMessage>> => {
    let byChannel: Record<string, LoggedMessage> = {};
    await expectEventually(async () => {
      const log = await get<{ results: LoggedMessage[] }>(`v1/message/?message_id=${messageId}`);
      byChannel = Object.fromEntries(log.results.map((message) => [message.channel, message]));
      expect({ email: byChannel.email?.status, inbox: byChannel.inbox?.status }).toEqual({ email: 'delivery_failure', inbox: 'delivered' });
    });
    return byChannel;
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
      }),
    );
    conformance = openApiResponseChecker((await fetchJson(`${herald.baseUrl}openapi.json`)).body as OpenApiDocument);
    await management('POST', 'v2/staging/template/note/', { name: 'Note', enabled_channels: ['email', 'inbox'] });
    await management('POST', 'v2/staging/template/note/channel/email/variant/default/', { locale: 'en', content: { subject: 'Welcome, {{name}}', text: 'Hi {{name}}, your plan is {{plan}}.' } });
    await management('POST', 'v2/staging/template/note/channel/inbox/variant/default/', { locale: 'en', content: { title: 'Hi {{name}}', body: 'Your plan is {{plan}}.' } });
    await management('PATCH', 'v2/staging/template/note/commit/?commit_message=t');
    await management('POST', 'v1/staging/workflow/note/?commit=true&commit_message=first', {
      name: 'Note',
      category: 'transactional',
      trigger_type: 'api',
      tree: {
        nodes: [
          { name: 'Inbox', node_type: 'send_inbox', template: 'note' },
          { name: 'Mail', node_type: 'send_email', template: 'note' },
        ],
      },
    });
  });

  afterAll(async () => {
    await herald?.stop();
    await dispose?.();
  });

  it('shows each placeholder the data had no value for on the message, by field, whether it was delivered or failed', async () => {
    const messageId = await trigger({ plan: 'pro' });
    const messages = await settledMessages(messageId);
    // The inbox needs no vendor: delivered, with its title rendered without the name.
    expect(messages.inbox.warnings).toEqual([{ code: 'missing_variable', field: 'title', variable: 'name' }]);
    // No email vendor is configured: failed, and the warnings still say what it would have lacked.
    expect(messages.email.warnings).toHaveLength(2);
    expect(messages.email.warnings).toEqual(
      expect.arrayContaining([
        { code: 'missing_variable', field: 'subject', variable: 'name' },
        { code: 'missing_variable', field: 'text', variable: 'name' },
      ]),
    );
    // Following the trigger's runs shows them too.
    const runs = await get<{ results: Array<{ messages: LoggedMessage[] }> }>(`v1/workflow_run/?message_id=${messageId}`);
    expect(runs.results.flatMap((run) => run.messages).find((message) => message.channel === 'inbox')?.warnings).toEqual([
      { code: 'missing_variable', field: 'title', variable: 'name' },
    ]);
  });

  it('shows no warning when the data has every value', async () => {
    const messages = await settledMessages(await trigger({ name: 'Ada', plan: 'pro' }));
    expect({ inbox: messages.inbox.warnings, email: messages.email.warnings }).toEqual({ inbox: [], email: [] });
  });
});

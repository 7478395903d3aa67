import { randomBytes } from 'node:crypto';
import { OpenApiDocument, expectEventually, fetchJson, heraldEnv, openApiResponseChecker } from '@herald/testing';
import { managementApi } from '@herald/management-api';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { heraldModes } from './testing/herald-modes';

interface ReplayJob {
  readonly id: string;
  readonly status: string;
  readonly progress: { readonly done: number; readonly total: number | null };
  readonly summary: { runs: number; runs_changed: number; changes: Record<string, number>; sends_by_channel: Record<string, { before: number; after: number }> } | null;
  readonly results?: Array<{
    run_id: string;
    recipient: { distinct_id: string };
    sends: Array<{ channel: string; template: string; at: string }>;
    changes: Array<{ kind: string; by_ms?: number; send?: { channel: string } }>;
  }>;
}

const HOUR = 3_600_000;
/** Generous: the machines these run on are shared, and Kafka consumers join in the background. */
const SLOW = { timeoutMs: 90_000 };

/**
 * What-if replay through the management API (issue 19): recorded runs of a live workflow
 * replayed against a draft that waits an hour first and drops the inbox: every email
 * moves by the hour, exactly the inbox sends are dropped, and nothing is sent.
 */
describe.each(heraldModes('replay'))('what-if replay ($name)', (mode) => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  const openApiProblems = openApiResponseChecker(managementApi.openApi as unknown as OpenApiDocument);
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;

  const management = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
    const response = await fetchJson(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (path.includes('/replay/')) expect(openApiProblems(method, `/${path}`.replace(/\?.*$/, ''), response.status, response.body)).toEqual([]);
    return response;
  };
  const api = (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const ok = (response: { status: number; body: unknown }): void =>
    expect({ success: response.status >= 200 && response.status < 300, body: response.body }).toMatchObject({ success: true });

  const workflow = (nodes: unknown[]) => ({ name: 'Reminder', category: 'transactional', trigger_type: 'api', tree: { nodes } });
  const mail = { name: 'Mail', node_type: 'send_email', template: 'hello' };
  const inbox = { name: 'Inbox', node_type: 'send_inbox', template: 'hello' };

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
    ok(await management('POST', 'v2/staging/template/hello/', { name: 'Hello', enabled_channels: ['email', 'inbox'] }));
    ok(await management('POST', 'v2/staging/template/hello/channel/email/variant/default/', { locale: 'en', content: { subject: 'Hi {{name}}', text: 'Hi {{name}}' } }));
    ok(await management('POST', 'v2/staging/template/hello/channel/inbox/variant/default/', { locale: 'en', content: { body: 'Hi {{name}}' } }));
    ok(await management('PATCH', 'v2/staging/template/hello/commit/?commit_message=t'));
    ok(await management('POST', 'v1/staging/workflow/reminder/?commit=true&commit_message=first', workflow([mail, inbox])));
  }, 600_000);

  afterAll(async () => {
    await herald?.stop();
    await dispose?.();
  });

  it('replays recorded runs against a draft that waits an hour and drops the inbox: each email moves by the hour, each inbox send is dropped', async () => {
    const recipients = ['ada', 'grace', 'linus'].map((id) => ({ distinct_id: id, $email: [`${id}@example.com`], name: id }));
    let messageId = '';
    await expectEventually(async () => {
      const response = await api('POST', 'trigger/', { workflow: 'reminder', recipients, data: {} });
      expect(response.status).toBe(202);
      messageId = (response.body as { message_id: string }).message_id;
    }, SLOW);
    await expectEventually(async () => {
      const runs = await api('GET', `v1/workflow_run/?message_id=${messageId}`);
      expect((runs.body as { results: Array<{ status: string }> }).results.map((run) => run.status)).toEqual(['completed', 'completed', 'completed']);
    }, SLOW);
    const sentBefore = ((await api('GET', `v1/message/?message_id=${messageId}`)).body as { results: unknown[] }).results.length;

    ok(await management('POST', 'v1/staging/workflow/reminder/', workflow([{ name: 'Hold', node_type: 'delay', delay_type: 'fixed', duration: '1h' }, mail])));
    const accepted = await management('POST', 'v1/staging/workflow/reminder/replay/', { count: 10 });
    expect(accepted).toMatchObject({ status: 202, body: { status: 'queued', source: { kind: 'draft' }, selection: { count: 10 } } });
    const jobId = (accepted.body as ReplayJob).id;

    let job: ReplayJob | undefined;
    await expectEventually(async () => {
      const response = await management('GET', `v1/staging/workflow/reminder/replay/${jobId}/`);
      expect(response.status).toBe(200);
      job = response.body as ReplayJob;
      expect(job.status).toBe('done');
    }, SLOW);
    expect(job?.progress).toEqual({ done: 3, total: 3 });
    expect(job?.summary).toMatchObject({
      runs: 3,
      runs_changed: 3,
      changes: { send_moved: 3, send_dropped: 3, send_added: 0, delay_moved: 3, branch_changed: 0 },
      sends_by_channel: { 'email:hello': { before: 3, after: 3 }, 'inbox:hello': { before: 3, after: 0 } },
    });
    for (const result of job?.results ?? []) {
      expect(result.sends.map((send) => send.channel)).toEqual(['email']);
      expect(result.changes.filter((change) => change.kind === 'send_moved').map((change) => change.by_ms)).toEqual([HOUR]);
      expect(result.changes.filter((change) => change.kind === 'send_dropped').map((change) => change.send?.channel)).toEqual(['inbox']);
    }
    expect(job?.results?.map((result) => result.recipient.distinct_id).sort()).toEqual(['ada', 'grace', 'linus']);
    // Nothing was sent by the replay.
    expect(((await api('GET', `v1/message/?message_id=${messageId}`)).body as { results: unknown[] }).results).toHaveLength(sentBefore);
  }, 300_000);

  it('refuses a bad request with every wrong field by path, and an invalid inline definition with its paths', async () => {
    const refused = await management('POST', 'v1/staging/workflow/reminder/replay/', { version: 'yesterday', count: 0, from: 'soon', recipients: [''] });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/version[\s\S]*from[\s\S]*recipients\[0\][\s\S]*count/);
    const invalid = await management('POST', 'v1/staging/workflow/reminder/replay/', { definition: { name: 'x', category: 'nope', trigger_type: 'api', tree: { nodes: [] } } });
    expect(invalid.status).toBe(400);
    expect(JSON.stringify(invalid.body)).toContain('definition.category');
    expect((await management('POST', 'v1/staging/workflow/nothing-here/replay/', {})).status).toBe(404);
    expect((await management('GET', 'v1/staging/workflow/reminder/replay/00000000-0000-0000-0000-000000000000/')).status).toBe(404);
  });
});

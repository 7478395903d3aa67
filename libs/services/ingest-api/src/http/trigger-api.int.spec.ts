import { TriggerAccepted } from '@herald/contracts';
import { hashToken } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { sampleTrigger } from '../validation/testing/sample-bodies';
import { IngestTestApp, startIngestTestApp } from '../testing/ingest-test-app';
import { runModeTargets } from '@herald/runtime';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(runModeTargets())('POST /trigger/ ($name)', ({ database, bus }) => {
  let t: IngestTestApp;

  beforeAll(async () => {
    t = await startIngestTestApp(database, bus);
    await t.announceWorkflow(t.workspace, 'order-shipped');
    await t.announceWorkflow(t.workspace, 'order-shipped_v2');
    await t.announceWorkflow(t.workspace, 'paused', { enabled: false });
  });
  afterAll(() => t?.close());

  const triggersOf = (messageId: string): Array<{ key: string; payload: TriggerAccepted; envelopeId: string }> =>
    t.triggers
      .filter((c) => (c.envelope.payload as TriggerAccepted).message_id === messageId)
      .map((c) => ({ key: c.key, payload: c.envelope.payload as TriggerAccepted, envelopeId: c.envelope.message_id }));

  it('accepts one trigger with 202 and puts one message per recipient on the engine topic, keyed workspace:recipient', async () => {
    const response = await t.call('POST', 'trigger/', {
      workflow: 'order-shipped',
      recipients: ['user-1', { distinct_id: 'user-2', $email: ['jane@example.com'] }, { id: 'acme', object_type: 'teams' }],
      data: { order: 42 },
    });
    expect(response).toEqual({ status: 202, body: { message_id: expect.stringMatching(UUID), status: 'success' } });
    const messageId = (response.body as { message_id: string }).message_id;
    await expectEventually(() => expect(triggersOf(messageId)).toHaveLength(3));
    const sent = triggersOf(messageId).sort((a, b) => a.payload.recipient_index - b.payload.recipient_index);
    expect(sent.map((m) => m.key)).toEqual([`${t.workspace.id}:user-1`, `${t.workspace.id}:user-2`, `${t.workspace.id}:teams:acme`]);
    expect(sent[1].payload).toMatchObject({
      workflow: 'order-shipped',
      workspace_slug: 'staging',
      recipient_count: 3,
      data: { order: 42 },
      accepted_via: 'api',
      recipient: { kind: 'user', distinct_id: 'user-2', channels: { email: ['jane@example.com'] } },
    });
    expect(new Set(sent.map((m) => m.envelopeId)).size).toBe(3);
  });

  it('accepts the richest valid body of interface 2.1 and passes every recipient on', async () => {
    const response = await t.call('POST', 'trigger/', { ...sampleTrigger(), $idempotency_key: undefined });
    expect(response.status).toBe(202);
    const messageId = (response.body as { message_id: string }).message_id;
    const recipients = (sampleTrigger().recipients as unknown[]).length;
    await expectEventually(() => expect(triggersOf(messageId)).toHaveLength(recipients));
  });

  it('answers 404 for an unknown or a disabled workflow, and for a workflow of another workspace, publishing nothing', async () => {
    const before = t.triggers.length;
    const unknown = await t.call('POST', 'trigger/', { workflow: 'no-such', recipients: ['u'] });
    expect(unknown).toMatchObject({ status: 404, body: { code: 404, error_code: 'not_found', type: 'NotFound', message: "workflow 'no-such' not found" } });
    const paused = await t.call('POST', 'trigger/', { workflow: 'paused', recipients: ['u'] });
    expect(paused).toMatchObject({ status: 404, body: { error_code: 'not_found', message: "workflow 'paused' is disabled" } });
    const foreign = await t.call('POST', 'trigger/', { workflow: 'order-shipped', recipients: ['u'] }, { authorization: `Bearer ${t.other.apiKey}` });
    expect(foreign).toMatchObject({ status: 404, body: { error_code: 'not_found' } });
    // A later valid trigger's messages arrive; none of the refused ones came before them.
    const ok = await t.call('POST', 'trigger/', { workflow: 'order-shipped', recipients: ['after'] });
    await expectEventually(() => expect(triggersOf((ok.body as { message_id: string }).message_id)).toHaveLength(1));
    expect(t.triggers.slice(before).map((c) => (c.envelope.payload as TriggerAccepted).recipient)).toEqual([
      expect.objectContaining({ distinct_id: 'after' }),
    ]);
  });

  it('refuses a $context.tenant_id that differs from tenant_id with 400 naming the field, and starts nothing', async () => {
    const before = t.triggers.length;
    const response = await t.call('POST', 'trigger/', {
      workflow: 'order-shipped',
      tenant_id: 'acme',
      recipients: [{ distinct_id: 'u1', $context: { tenant_id: 'globex' } }],
    });
    expect(response).toMatchObject({ status: 400, body: { error_code: 'validation_error', type: 'ValidationError' } });
    expect((response.body as { detail: string }).detail).toContain('recipients[0].$context.tenant_id');
    await t.drain();
    expect(t.triggers.length).toBe(before);
  });

  it('names every failing field in one 400', async () => {
    const response = await t.call('POST', 'trigger/', {
      workflow: 'order-shipped',
      recipients: [{ distinct_id: 'u', $email: ['not-an-email'], $slack: [{ email: 'a@b.co', access_token: '' }] }, 42],
      actor: { $timezone: 'Mars/Olympus' },
    });
    expect(response.status).toBe(400);
    const detail = (response.body as { detail: string }).detail;
    for (const path of ['recipients[0].$email[0]', 'recipients[0].$slack[0]', 'recipients[1]', 'actor']) expect(detail).toContain(path);
  });

  it('refuses what is not a JSON body: empty, malformed, too large, not JSON', async () => {
    expect(await t.call('POST', 'trigger/', undefined)).toMatchObject({ status: 400, body: { error_code: 'validation_error' } });
    // What the SDKs send on body-less calls: a JSON content type and no bytes. It reaches the handler.
    expect(await t.call('POST', 'trigger/', '', { 'content-type': 'application/json; charset=utf-8' })).toMatchObject({
      status: 400,
      body: { detail: 'a JSON body is required' },
    });
    expect(await t.call('POST', 'trigger/', '{"workflow":')).toMatchObject({ status: 400, body: { error_code: 'validation_error' } });
    expect(await t.call('POST', 'trigger/', '{"__proto__": {"polluted": 1}}')).toMatchObject({ status: 400 });
    const huge = { workflow: 'order-shipped', recipients: ['u'], data: { blob: 'x'.repeat(820 * 1024) } };
    expect(await t.call('POST', 'trigger/', huge)).toMatchObject({ status: 413, body: { error_code: 'payload_too_large' } });
    expect(await t.call('POST', 'trigger/', 'workflow=x', { 'content-type': 'application/x-www-form-urlencoded' })).toMatchObject({ status: 400 });
  });

  it('authenticates by Bearer API key or by the SDK signature, and answers 401 otherwise', async () => {
    const body = JSON.stringify({ workflow: 'order-shipped', recipients: ['signed-user'] });
    expect(await t.signedCall('POST', 'trigger/', body)).toMatchObject({ status: 202, body: { status: 'success' } });
    const wrongSecret = { ...t.workspace, workspaceSecret: 'nope' };
    const refused = { status: 401, body: { code: 401, error_code: 'authentication_failed', type: 'AuthenticationFailed' } };
    expect(await t.signedCall('POST', 'trigger/', body, wrongSecret)).toMatchObject(refused);
    expect(await t.call('POST', 'trigger/', JSON.parse(body), { authorization: '' })).toMatchObject(refused);
    expect(await t.call('POST', 'trigger/', JSON.parse(body), { authorization: 'Bearer hak_wrong' })).toMatchObject(refused);
    expect(await t.call('POST', 'trigger/', JSON.parse(body), { authorization: 'Basic dTpw' })).toMatchObject(refused);
  });

  it('stops accepting an API key once management deletes it', async () => {
    const apiKeyId = '7d1f0f7e-8d57-4bb4-9a3c-3d1c1a8b0c55';
    const apiKey = 'hak_deleted_soon_0123456789abcdef';
    const change = { kind: 'api_key' as const, api_key_id: apiKeyId, workspace_id: t.workspace.id, workspace_slug: 'staging', key_hash: hashToken(apiKey).toString('hex') };
    await t.announceCredentials({ ...change, change: 'created' });
    const probe = (): Promise<{ status: number }> => t.call('POST', 'trigger/', { workflow: 'order-shipped', recipients: ['k'] }, { authorization: `Bearer ${apiKey}` });
    await expectEventually(async () => expect((await probe()).status).toBe(202));
    await t.announceCredentials({ ...change, change: 'deleted' });
    await expectEventually(async () => expect((await probe()).status).toBe(401));
  });

  it('answers a bulk array with 207 and a result per record, in order', async () => {
    const response = await t.call('POST', 'trigger/', [
      { workflow: 'order-shipped', recipients: ['bulk-1'] },
      { workflow: 'order-shipped', recipients: [] },
      { workflow: 'no-such', recipients: ['bulk-3'] },
      { workflow: 'order-shipped', recipients: ['bulk-4', 'bulk-5'] },
    ]);
    expect(response.status).toBe(207);
    const records = (response.body as { records: Array<Record<string, unknown>>; status: string }).records;
    expect((response.body as { status: string }).status).toBe('success');
    expect(records).toEqual([
      { status: 'success', status_code: 202, message_id: expect.stringMatching(UUID) },
      { status: 'error', status_code: 400, error: { message: expect.stringContaining('recipients'), type: 'ValidationError' } },
      { status: 'error', status_code: 404, error: { message: "workflow 'no-such' not found", type: 'NotFound' } },
      { status: 'success', status_code: 202, message_id: expect.stringMatching(UUID) },
    ]);
    await expectEventually(() => expect(triggersOf(records[3].message_id as string)).toHaveLength(2));
    expect(await t.call('POST', 'trigger/', [])).toMatchObject({ status: 400 });
    const tooMany = Array.from({ length: 101 }, () => ({ workflow: 'order-shipped', recipients: ['x'] }));
    expect(await t.call('POST', 'trigger/', tooMany)).toMatchObject({ status: 400 });
  });

  it('publishes inline channels and properties as a profile update, to the per-tenant profile under $context', async () => {
    const response = await t.call('POST', 'trigger/', {
      workflow: 'order-shipped',
      tenant_id: 'acme',
      recipients: [
        { distinct_id: 'profiled', $email: ['p@example.com'], plan: 'pro', $context: { tenant_id: 'acme' } },
        { distinct_id: 'global-only', $sms: ['+14155550100'] },
        'bare',
      ],
      actor: { distinct_id: 'the-actor', name: 'Ada' },
    });
    expect(response.status).toBe(202);
    const messageId = (response.body as { message_id: string }).message_id;
    const updates = (): unknown[] => t.audience.map((c) => c.envelope.payload).filter((p) => (p as { source_message_id: string }).source_message_id === messageId);
    await expectEventually(() => expect(updates()).toHaveLength(3));
    expect(updates()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ subject: { type: 'user', distinct_id: 'profiled' }, tenant_id: 'acme', channels: { email: ['p@example.com'] }, properties: { plan: 'pro' } }),
        expect.objectContaining({ subject: { type: 'user', distinct_id: 'global-only' }, channels: { sms: ['+14155550100'] } }),
        expect.objectContaining({ subject: { type: 'user', distinct_id: 'the-actor' }, properties: { name: 'Ada' } }),
      ]),
    );
    expect(updates().some((u) => (u as { tenant_id?: string }).tenant_id === undefined && JSON.stringify(u).includes('global-only'))).toBe(true);
    expect(t.audience.find((c) => JSON.stringify(c.envelope.payload).includes('"bare"'))).toBeUndefined();
  });
});

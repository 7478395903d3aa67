import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SUPPRESSION_CHANGED_TYPE, SUPPRESSION_CHANGED_VERSION, SuppressionChanged, TOPICS, envelopeOf, parseEnvelope, parseSuppressionChanged } from '@herald/contracts';
import { databaseTargets, expectEventually } from '@herald/testing';
import { ManagementTestApp, startManagementTestApp } from '../testing/management-test-app';

/**
 * The suppression API on management-api's own test app (embedded: the behaviour does not
 * differ by database; the repository spec runs both): a dispatcher's bounce on the topic
 * appears in the list, the API's changes are announced on it, bad input is a 400 naming
 * its field, and another account's token reaches nothing.
 */
describe('suppression API', () => {
  let management: ManagementTestApp;
  let workspaceId: string;
  const announced: SuppressionChanged[] = [];

  beforeAll(async () => {
    management = await startManagementTestApp(databaseTargets()[0]);
    [{ id: workspaceId }] = await management.sql<{ id: string }>(`SELECT w.id FROM management.workspaces w JOIN management.service_tokens t ON t.account_id = w.account_id WHERE w.slug = 'staging' AND t.name <> 'other' LIMIT 1`);
    await management.app.bus.subscribe({
      groupId: 'test-suppressions',
      topics: [TOPICS.suppressionChanged.name],
      handler: async (message) => {
        const envelope = parseEnvelope(message.value);
        const change = envelope.ok ? parseSuppressionChanged(envelope.value.payload) : undefined;
        if (!change?.ok) throw new Error(`invalid suppression change: ${message.value.toString()}`);
        announced.push(change.value);
      },
    });
  }, 120_000);
  afterAll(async () => management?.close());

  /** What a dispatcher publishes when a vendor reports a hard bounce. */
  const publishBounce = async (address: string): Promise<void> => {
    const change: SuppressionChanged = { workspace_id: workspaceId, channel: 'email', address, change: 'added', reason: 'hard_bounce', detail: '550 user unknown', vendor: 'email/postmark', at: new Date().toISOString() };
    const messageId = randomUUID();
    await management.app.bus.publish(TOPICS.suppressionChanged.name, [
      { key: workspaceId, value: Buffer.from(JSON.stringify(envelopeOf(SUPPRESSION_CHANGED_TYPE, SUPPRESSION_CHANGED_VERSION, messageId, workspaceId, new Date(), change))), headers: { 'message-id': messageId } },
    ]);
  };
  const list = async (query = ''): Promise<{ meta: { count: number }; results: Array<Record<string, unknown>> }> => {
    const answer = await management.call('GET', `v1/staging/suppression/${query}`);
    expect(answer.status).toBe(200);
    return answer.body as { meta: { count: number }; results: Array<Record<string, unknown>> };
  };

  it("lists a dispatcher's bounce; removing it announces the removal for the dispatchers; a manual add is announced and listed", async () => {
    await publishBounce('gone@example.com');
    await expectEventually(async () => expect((await list('?channel=email&address=Gone@Example.com')).results).toEqual([
      { channel: 'email', address: 'gone@example.com', reason: 'hard_bounce', detail: '550 user unknown', vendor: 'email/postmark', created_at: expect.any(String) },
    ]));
    expect(await management.call('GET', 'v1/staging/suppression/email/GONE%40example.com/')).toMatchObject({ status: 200, body: { reason: 'hard_bounce' } });

    expect(await management.call('DELETE', 'v1/staging/suppression/email/gone%40example.com/')).toMatchObject({ status: 204 });
    expect((await list('?address=gone@example.com')).meta.count).toBe(0);
    expect(await management.call('DELETE', 'v1/staging/suppression/email/gone%40example.com/')).toMatchObject({ status: 404 });

    const added = await management.call('POST', 'v1/staging/suppression/', { channel: 'sms', address: '+1 (415) 555-0100', detail: 'asked by phone' });
    expect(added).toEqual({ status: 201, body: { channel: 'sms', address: '+14155550100', reason: 'manual', detail: 'asked by phone', vendor: null, created_at: expect.any(String) } });
    expect((await list('?channel=sms')).results.map((entry) => entry.address)).toEqual(['+14155550100']);
    await expectEventually(() =>
      expect(announced.map((change) => `${change.change} ${change.channel} ${change.address} ${change.reason ?? ''}`)).toEqual([
        'added email gone@example.com hard_bounce',
        'removed email gone@example.com ',
        'added sms +14155550100 manual',
      ]),
    );
    // The API's own change, coming back from the topic, changes nothing.
    expect((await list()).meta.count).toBe(1);
  });

  it('refuses bad input with a 400 naming each field, and unknown entries with a 404', async () => {
    const bad = async (body: unknown): Promise<string> => {
      const answer = await management.call('POST', 'v1/staging/suppression/', body);
      expect(answer.status).toBe(400);
      return (answer.body as { detail: string }).detail;
    };
    expect(await bad({ channel: 'push', address: 'x', reason: 'bored' })).toMatch(/^channel: must be one of email, sms, whatsapp; reason: must be one of/);
    expect(await bad({ channel: 'email', address: 'not-an-email' })).toBe('address: must be an email address (local@domain)');
    expect(await bad({ channel: 'whatsapp', address: '12ab' })).toBe('address: must be a phone number in international form (+14155550100)');
    expect(await bad({ address: 'a@example.com' })).toMatch(/^channel: /);
    expect(await management.call('GET', 'v1/staging/suppression/?channel=push')).toMatchObject({ status: 400, body: { detail: 'channel: must be one of email, sms, whatsapp' } });
    expect(await management.call('GET', 'v1/staging/suppression/?limit=0')).toMatchObject({ status: 400, body: { detail: 'limit: must be an integer from 1 to 1000' } });
    expect(await management.call('GET', 'v1/staging/suppression/push/x/')).toMatchObject({ status: 404 });
    expect(await management.call('GET', 'v1/staging/suppression/email/nobody%40example.com/')).toMatchObject({ status: 404 });
  });

  it("adds docs/reference.md's example as the reference says", async () => {
    const reference = readFileSync(join(__dirname, '..', '..', '..', '..', '..', 'docs', 'reference.md'), 'utf8');
    const row = reference.split('\n').find((line) => line.startsWith('| `POST /v1/{workspace}/suppression/`'));
    const example = JSON.parse(/`(\{.*?\})`/.exec(row ?? '')?.[1] ?? 'null') as Record<string, unknown>;
    expect(await management.call('POST', 'v1/staging/suppression/', example)).toEqual({
      status: 201,
      body: { channel: 'email', address: 'ada@example.com', reason: 'manual', detail: 'asked by phone', vendor: null, created_at: expect.any(String) },
    });
  });

  it("never shows or changes one account's list with another account's token", async () => {
    await management.call('POST', 'v1/staging/suppression/', { channel: 'email', address: 'mine@example.com' });
    const other = management.otherToken;
    // The other account's own `staging` is another workspace: its list is empty, and the entry is not its to remove.
    expect(await management.call('GET', 'v1/staging/suppression/', undefined, other)).toMatchObject({ status: 200, body: { meta: { count: 0 }, results: [] } });
    expect(await management.call('DELETE', 'v1/staging/suppression/email/mine%40example.com/', undefined, other)).toMatchObject({ status: 404 });
    expect(await management.call('GET', 'v1/staging/suppression/', undefined, 'hst_not-a-token')).toMatchObject({ status: 401 });
    expect((await list('?address=mine@example.com')).meta.count).toBe(1);
  });
});

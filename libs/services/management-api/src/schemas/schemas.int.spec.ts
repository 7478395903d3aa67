import { DefinitionChanged } from '@herald/contracts';
import { databaseTargets, expectEventually } from '@herald/testing';
import { ManagementTestApp, startManagementTestApp } from '../testing/management-test-app';

const S = 'v1/staging/schema';
const ORDER = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['order_id'],
  properties: { order_id: { type: 'string' } },
};

describe.each(databaseTargets())('management API: schemas ($kind)', (target) => {
  let t: ManagementTestApp;
  const call = (method: string, path: string, body?: unknown, token?: string) => t.call(method, path, body, token) as Promise<{ status: number; body: Record<string, unknown> }>;
  const detailOf = (response: { body: Record<string, unknown> }): string => response.body.detail as string;

  async function announcementsOf(slug: string): Promise<DefinitionChanged[]> {
    await expectEventually(async () => expect(await t.sql(`SELECT id FROM management.outbox`)).toEqual([]));
    return t.definitions.filter((d) => d.id === slug && (d.kind === 'schema' || d.kind === 'workflow'));
  }

  beforeAll(async () => {
    t = await startManagementTestApp(target);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('saves a draft, commits it, and announces the live version', async () => {
    const draft = await call('POST', `${S}/order-placed/`, { name: 'Order placed', description: null, json_schema: ORDER });
    expect(draft).toMatchObject({ status: 200, body: { slug: 'order-placed', status: 'draft', version_no: 1, json_schema: ORDER, committed_at: null } });
    expect((await call('GET', `${S}/order-placed/?mode=live`)).status).toBe(404);
    expect(await announcementsOf('order-placed')).toEqual([]);

    const live = await call('PATCH', `${S}/order-placed/commit/?commit_message=first`);
    expect(live).toMatchObject({ status: 200, body: { status: 'live', version_no: 1, commit_message: 'first', committed_at: expect.any(String) } });
    expect(await announcementsOf('order-placed')).toEqual([
      expect.objectContaining({ kind: 'schema', change: 'committed', version: 1, document: { slug: 'order-placed', version_no: 1, json_schema: ORDER } }),
    ]);
    expect((await call('PATCH', `${S}/order-placed/commit/`)).status).toBe(409);

    // A new draft shows in draft mode; live mode keeps the committed version.
    await call('POST', `${S}/order-placed/`, { name: 'Order placed v2', json_schema: { type: 'object' } });
    expect((await call('GET', `${S}/order-placed/`)).body).toMatchObject({ status: 'draft', version_no: 2, name: 'Order placed v2' });
    expect((await call('GET', `${S}/order-placed/?mode=live`)).body).toMatchObject({ status: 'live', version_no: 1 });
    expect((await call('GET', `${S}/?mode=live`)).body).toMatchObject({ meta: { count: 1 }, results: [{ slug: 'order-placed', version_no: 1 }] });
    const committed = await call('POST', `${S}/order-placed/?commit=true&commit_message=v2`, { name: 'Order placed v2', json_schema: { type: 'object' } });
    expect(committed.body).toMatchObject({ status: 'live', version_no: 2 });
  });

  it('refuses a body that is not a schema, by field path', async () => {
    const refused = await call('POST', `${S}/broken/`, { json_schema: { type: 'objekt' }, colour: 'red' });
    expect(refused.status).toBe(400);
    expect(detailOf(refused)).toContain('colour: is not a field of a schema');
    expect(detailOf(refused)).toContain('name: is required');
    expect(detailOf(refused)).toContain('json_schema: is not a valid JSON Schema');
    expect((await call('POST', `${S}/Bad Slug/`, { name: 'x', json_schema: {} })).status).toBe(400);
    expect((await call('GET', `${S}/broken/`)).status).toBe(404);
  });

  it('lets a workflow link only a live schema, and announces the link with it', async () => {
    const workflow = (payload_schema: unknown) => ({
      name: 'Checked',
      category: 'transactional',
      trigger_type: 'api',
      payload_schema,
      tree: { nodes: [{ name: 'Wait', node_type: 'delay', delay_type: 'fixed', duration: '0d0h0m2s' }] },
    });
    const malformed = await call('POST', 'v1/staging/workflow/checked/', workflow({ schema: '', version_no: 0, extra: 1 }));
    expect(malformed.status).toBe(400);
    expect(detailOf(malformed)).toBe(
      'payload_schema.extra: is not a field of payload_schema (schema, version_no); payload_schema.schema: is required: a schema slug; payload_schema.version_no: must be a positive integer or null (the live version)',
    );
    await call('POST', `${S}/draft-only/`, { name: 'Draft only', json_schema: ORDER });
    const notLive = await call('POST', 'v1/staging/workflow/checked/?commit=true', workflow({ schema: 'draft-only' }));
    expect(notLive.status).toBe(400);
    expect(detailOf(notLive)).toContain('payload_schema.schema: no live schema with slug "draft-only"');
    const noVersion = await call('POST', 'v1/staging/workflow/checked/?commit=true', workflow({ schema: 'order-placed', version_no: 9 }));
    expect(detailOf(noVersion)).toBe('payload_schema.version_no: schema "order-placed" has no committed version 9');

    const linked = await call('POST', 'v1/staging/workflow/checked/?commit=true', workflow({ schema: 'order-placed', version_no: 1 }));
    expect(linked).toMatchObject({ status: 201, body: { status: 'active', payload_schema: { schema: 'order-placed', version_no: 1 } } });
    const [announced] = (await announcementsOf('checked')).filter((d) => d.kind === 'workflow');
    expect(announced.document).toMatchObject({ payload_schema: { schema: 'order-placed', version_no: 1 } });
  });

  it("shows another account none of this account's schemas", async () => {
    expect((await call('GET', `${S}/`, undefined, t.otherToken)).body).toMatchObject({ meta: { count: 0 } });
    expect((await call('GET', `${S}/order-placed/`, undefined, t.otherToken)).status).toBe(404);
    expect((await call('PATCH', `${S}/order-placed/commit/`, undefined, t.otherToken)).status).toBe(404);
  });
});

import { databaseTargets, expectEventually } from '@herald/testing';
import { ManagementTestApp, startManagementTestApp } from '../testing/management-test-app';

const E = 'v1/staging/event';
const SCHEMA = { name: 'Order', json_schema: { type: 'object', required: ['order_id'], properties: { order_id: { type: 'string' } } } };
const WORKFLOW = {
  name: 'On order',
  category: 'transactional',
  trigger_type: 'event',
  trigger_events: ['order placed'],
  tree: { nodes: [{ name: 'Wait', node_type: 'delay', delay_type: 'fixed', duration: '0d0h0m2s' }] },
};

describe.each(databaseTargets())('management API: events ($kind)', (target) => {
  let t: ManagementTestApp;
  const call = (method: string, path: string, body?: unknown, token?: string) => t.call(method, path, body, token) as Promise<{ status: number; body: Record<string, unknown> }>;

  beforeAll(async () => {
    t = await startManagementTestApp(target);
    expect((await call('POST', 'v1/staging/schema/order/?commit=true', SCHEMA)).status).toBe(200);
    expect((await call('POST', 'v1/staging/schema/draft-only/', SCHEMA)).status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts the trigger of a live workflow as seen, with the workflows it triggers', async () => {
    expect((await call('GET', `${E}/order%20placed/`)).status).toBe(404);
    expect((await call('POST', 'v1/staging/workflow/on-order/', WORKFLOW)).status).toBe(201);
    // A draft triggers nothing: the event is seen once the workflow goes live.
    expect((await call('GET', `${E}/order%20placed/linked_workflows/`)).status).toBe(404);
    expect((await call('PATCH', 'v1/staging/workflow/on-order/commit/')).status).toBe(202);
    expect(await call('GET', `${E}/order%20placed/`)).toMatchObject({ status: 200, body: { name: 'order placed', description: '', payload_schema: null } });
    expect((await call('GET', `${E}/order%20placed/linked_workflows/`)).body).toEqual({ results: [{ slug: 'on-order', usage: ['Trigger Event'] }] });

    // Linking a schema registers it; delinking removes the link, and a second delink is refused.
    const linked = await call('PATCH', `${E}/order%20placed/`, { description: 'An order', payload_schema: { schema: 'order' } });
    expect(linked).toMatchObject({ status: 200, body: { description: 'An order', payload_schema: { schema: 'order', version_no: null } } });
    expect((await call('PATCH', `${E}/order%20placed/delink_schema/`)).body).toMatchObject({ description: 'An order', payload_schema: null });
    // Each link and delink is announced to ingest, which checks the event's properties with it.
    await expectEventually(async () => expect(await t.sql(`SELECT id FROM management.outbox`)).toEqual([]));
    expect(t.definitions.filter((d) => d.kind === 'event_schema' && d.id === 'order placed')).toEqual([
      expect.objectContaining({ change: 'upserted', version: 1, document: { event: 'order placed', payload_schema: { schema: 'order', version_no: null } } }),
      expect.objectContaining({ change: 'upserted', version: 2, document: { event: 'order placed', payload_schema: null } }),
    ]);
    const again = await call('PATCH', `${E}/order%20placed/delink_schema/`);
    expect(again).toMatchObject({ status: 400, body: { detail: 'payload_schema: the event has no linked schema to delink' } });
  });

  it('registers an event, links only a committed schema, and lists what it has seen', async () => {
    const registered = await call('POST', `${E}/`, { name: 'user signup', payload_schema: { schema: 'order', version_no: 1 } });
    expect(registered).toMatchObject({ status: 200, body: { name: 'user signup', payload_schema: { schema: 'order', version_no: 1 }, $schema: expect.any(String) } });
    expect((await call('GET', `${E}/user%20signup/linked_workflows/`)).body).toEqual({ results: [] });
    const notLive = await call('PATCH', `${E}/user%20signup/`, { payload_schema: { schema: 'draft-only' } });
    expect(notLive).toMatchObject({ status: 400, body: { detail: expect.stringContaining('payload_schema.schema: no live schema with slug "draft-only"') } });
    const noVersion = await call('PATCH', `${E}/user%20signup/`, { payload_schema: { schema: 'order', version_no: 7 } });
    expect(noVersion).toMatchObject({ status: 400, body: { detail: 'payload_schema.version_no: schema "order" has no committed version 7' } });
    // A refused link leaves the event as it was.
    expect((await call('GET', `${E}/user%20signup/`)).body).toMatchObject({ payload_schema: { schema: 'order', version_no: 1 } });
    expect((await call('PATCH', `${E}/never%20seen/`, { description: 'x' })).status).toBe(404);

    const list = await call('GET', `${E}/?limit=1`);
    expect(list.body).toMatchObject({ meta: { count: 2, limit: 1, offset: 0 }, results: [{ name: 'user signup' }] });
    expect((await call('GET', `${E}/?offset=1`)).body).toMatchObject({ results: [{ name: 'order placed' }] });
  });

  it('refuses a malformed body by field path', async () => {
    const refused = await call('POST', `${E}/`, { description: 3, payload_schema: { version_no: 0, extra: true }, colour: 'red' });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe(
      'name: is required: a non-empty string of at most 255 characters; colour: is not a field of an event (name, description, payload_schema); description: must be a string; payload_schema.schema: is required: a schema slug; payload_schema.extra: is not a field of payload_schema (schema, version_no); payload_schema.version_no: must be a positive integer or null (the live version)',
    );
    expect((await call('PATCH', `${E}/user%20signup/`, { name: 'renamed' })).body).toMatchObject({ detail: 'name: is not a field of an event (description, payload_schema)' });
    expect((await call('PATCH', `${E}/user%20signup/`, [])).status).toBe(400);
  });

  it("shows another account none of this account's events", async () => {
    expect((await call('GET', `${E}/`, undefined, t.otherToken)).body).toMatchObject({ meta: { count: 0 } });
    expect((await call('GET', `${E}/user%20signup/`, undefined, t.otherToken)).status).toBe(404);
    expect((await call('PATCH', `${E}/user%20signup/delink_schema/`, undefined, t.otherToken)).status).toBe(404);
  });
});

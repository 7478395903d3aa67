import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DefinitionChanged } from '@herald/contracts';
import { databaseTargets, expectEventually } from '@herald/testing';
import { ManagementTestApp, startManagementTestApp } from '../testing/management-test-app';

const W = 'v1/staging/workflow';

/** A workflow using most node types, valid against the categories and templates set up below. */
function richWorkflow(): Record<string, unknown> {
  return {
    name: 'Order updates',
    description: 'Tells a customer what happened to an order',
    category: 'order-updates',
    tags: ['orders'],
    trigger_type: 'api',
    ratelimit: { count: 5, sliding_window: '1h' },
    tree: {
      nodes: [
        { name: 'Wait a little', node_type: 'delay', delay_type: 'fixed', duration: '0d0h0m2s' },
        { name: 'Dynamic wait', node_type: 'delay', delay_type: 'dynamic', duration: '.wait // "1m"' },
        {
          name: 'Collect',
          node_type: 'batch',
          mode: 'accumulate_all',
          window_type: 'fixed',
          fixed_window: '5m',
          retain_count: 20,
          retain_order: 'last',
          batch_key: '.order_id',
        },
        {
          name: 'Ask the shop',
          node_type: 'httpapi_webhook',
          http_method: 'POST',
          url: 'https://shop.example.com/hooks/order',
          headers: [{ key: 'x-order', value: 'data.order_id' }],
          body: '{ order: data.order_id }',
          output_key: 'shop',
        },
        {
          name: 'Paid?',
          node_type: 'branch',
          branches: [
            {
              name: 'paid',
              is_default: false,
              conditions: [
                { type: 'expression_v1', expression_v1: { op: 'AND', args: [{ variable_ns: '', variable: 'status', op: '==', value: 'paid' }] } },
              ],
              nodes: [{ name: 'Receipt', node_type: 'send_email', template: 'welcome' }],
            },
            { name: 'otherwise', is_default: true, conditions: [], nodes: [{ name: 'Everywhere', node_type: 'send_multi_channel', template: 'welcome' }] },
          ],
        },
        {
          name: 'Wait for delivery',
          node_type: 'branch_waituntil',
          branches: [
            {
              name: 'delivered',
              is_default: false,
              conditions: [{ type: 'future_event', event_name: 'order_delivered', event_conditions: [] }],
              nodes: [{ name: 'Thanks', node_type: 'send_inbox', template: 'welcome' }],
            },
            {
              name: 'timeout',
              is_default: true,
              conditions: [{ type: 'delay', delay_properties: { delay_type: 'fixed', value: '2d' } }],
              nodes: [{ name: 'Sorry', node_type: 'send_sms', template: 'welcome' }],
            },
          ],
        },
        {
          name: 'Weekly summary',
          node_type: 'digest',
          schedule_type: 'static',
          schedule: { frequency: 'weekly', interval: 1, weekdays: ['mo'], time: '09:00', tz_selection: 'recipient' },
          retain_count: 10,
        },
      ],
    },
  };
}

describe.each(databaseTargets())('management API: workflows ($kind)', (target) => {
  let t: ManagementTestApp;
  const workflowEvents = (): DefinitionChanged[] => t.definitions.filter((d) => d.kind === 'workflow');

  beforeAll(async () => {
    t = await startManagementTestApp(target);
    const categories = await t.call('POST', 'v1/staging/preference_category/?commit=true&commit_message=init', {
      root_categories: [
        { root_category: 'transactional', sections: [{ name: 'Orders', categories: [{ category: 'order-updates', name: 'Order updates', default_preference: 'opt_in' }] }] },
      ],
    });
    expect(categories.status).toBe(200);
    await t.call('POST', 'v2/staging/template/welcome/', { name: 'Welcome', enabled_channels: ['email'] });
    const variant = await t.call('POST', 'v2/staging/template/welcome/channel/email/variant/default/', {
      locale: 'en',
      content: { subject: 'Hello {{name}}', text: 'Hello' },
    });
    expect(variant.status).toBe(200);
    expect((await t.call('PATCH', 'v2/staging/template/welcome/commit/', { commit_message: 'first' })).status).toBe(200);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('saves a valid draft (201) that is not live yet', async () => {
    const saved = await t.call('POST', `${W}/order-updates/`, richWorkflow());
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({
      slug: 'order-updates',
      status: 'draft',
      is_enabled: true,
      active_at: null,
      version_no: 1,
      category: 'order-updates',
      validation_result: { is_valid: true, errors: [] },
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect((await t.call('GET', `${W}/order-updates/?mode=draft`)).body).toMatchObject({ status: 'draft', name: 'Order updates' });
    expect(await t.call('GET', `${W}/order-updates/?mode=live`)).toMatchObject({ status: 404, body: { error_code: 'not_found' } });
  });

  it('commits the draft (202), announcing the live definition once', async () => {
    const committed = await t.call('PATCH', `${W}/order-updates/commit/?commit_message=first%20version`);
    expect(committed).toMatchObject({
      status: 202,
      body: { status: 'active', version_no: 1, commit_message: 'first version', active_at: expect.any(String) },
    });
    expect((await t.call('GET', `${W}/order-updates/?mode=live`)).body).toMatchObject({ status: 'active', version_no: 1 });
    await expectEventually(() => expect(workflowEvents()).toHaveLength(1));
    expect(workflowEvents()[0]).toMatchObject({
      kind: 'workflow',
      change: 'committed',
      id: 'order-updates',
      version: 1,
      document: { slug: 'order-updates', version_no: 1, is_enabled: true, definition: { category: 'order-updates', trigger_type: 'api' } },
    });
  });

  it('keeps an invalid draft with every error by path, and refuses to commit it', async () => {
    const broken = richWorkflow();
    const nodes = (broken.tree as { nodes: Array<Record<string, unknown>> }).nodes;
    nodes[0].duration = 'soon';
    ((nodes[4].branches as Array<{ nodes: Array<Record<string, unknown>> }>)[0].nodes[0]).template = 'no-such-template';
    const saved = await t.call('POST', `${W}/order-updates/`, broken);
    expect(saved.status).toBe(201);
    const result = (saved.body as { validation_result: { is_valid: boolean; errors: string[] } }).validation_result;
    expect(result.is_valid).toBe(false);
    expect(result.errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^tree\.nodes\[0\]\.duration: /),
        expect.stringMatching(/^tree\.nodes\[4\]\.branches\[0\]\.nodes\[0\]\.template: /),
      ]),
    );

    const commit = await t.call('PATCH', `${W}/order-updates/commit/`);
    expect(commit.status).toBe(400);
    expect((commit.body as { detail: string }).detail).toContain('tree.nodes[0].duration');
    expect((await t.call('GET', `${W}/order-updates/?mode=live`)).body).toMatchObject({ version_no: 1, status: 'active' });
  });

  it('refuses at save a workflow naming a category the workspace does not have, listing the valid slugs', async () => {
    const unknown = { ...richWorkflow(), category: 'no-such-category' };
    const saved = await t.call('POST', `${W}/unknown-category/`, unknown);
    expect(saved.status).toBe(400);
    expect((saved.body as { detail: string }).detail).toMatch(/^category: no notification category with slug "no-such-category": must be one of .*order-updates/);
    expect((await t.call('GET', `${W}/unknown-category/?mode=draft`)).status).toBe(404);
  });

  it('saves and commits in one call with commit=true, keeping the history', async () => {
    const next = richWorkflow();
    next.description = 'second version';
    const response = await t.call('POST', `${W}/order-updates/?commit=true&commit_message=second`, next);
    expect(response).toMatchObject({ status: 201, body: { status: 'active', version_no: 2, description: 'second version' } });
    const history = await t.call('GET', `${W}/order-updates/versions/`);
    expect((history.body as { results: Array<{ version_no: number; status: string }> }).results.map((v) => [v.version_no, v.status])).toEqual([
      [2, 'active'],
      [1, 'archived'],
    ]);
    await expectEventually(() => expect(workflowEvents().map((e) => e.version)).toEqual([1, 2]));
  });

  it('disables and enables a workflow, announcing each', async () => {
    expect(await t.call('PATCH', `${W}/order-updates/enable/`, { is_enabled: false })).toMatchObject({
      status: 202,
      body: { status: 'inactive', is_enabled: false },
    });
    expect(await t.call('PATCH', `${W}/order-updates/enable/`, { is_enabled: true })).toMatchObject({
      status: 202,
      body: { status: 'active', is_enabled: true },
    });
    await expectEventually(() => expect(workflowEvents().map((e) => e.change)).toEqual(['committed', 'committed', 'disabled', 'enabled']));
    expect((await t.call('PATCH', `${W}/order-updates/enable/`, { is_enabled: 'yes' })).status).toBe(400);
  });

  it("answers a version's definition, and rolls back to it as the next version, replacing a pending draft", async () => {
    const first = await t.call('GET', `${W}/order-updates/versions/1/`);
    expect(first).toMatchObject({ status: 200, body: { version_no: 1, status: 'archived', commit_message: 'first version', definition: { description: 'Tells a customer what happened to an order' } } });
    expect((await t.call('GET', `${W}/order-updates/versions/2/`)).body).toMatchObject({ status: 'active', definition: { description: 'second version' } });
    expect((await t.call('GET', `${W}/order-updates/versions/99/`)).status).toBe(404);
    expect((await t.call('GET', `${W}/order-updates/versions/one/`)).status).toBe(400);
    expect((await t.call('POST', `${W}/order-updates/`, { ...richWorkflow(), description: 'pending' })).status).toBe(201);
    expect((await t.call('POST', `${W}/order-updates/versions/3/rollback/`)).status).toBe(409);

    const rolledBack = await t.call('POST', `${W}/order-updates/versions/1/rollback/`);
    expect(rolledBack).toMatchObject({
      status: 202,
      body: { status: 'active', version_no: 3, commit_message: 'rollback to version 1', description: 'Tells a customer what happened to an order' },
    });
    // The pending draft became the rolled-back version: there is no draft left.
    expect((await t.call('GET', `${W}/order-updates/?mode=draft`)).body).toMatchObject({ status: 'active', version_no: 3 });
    const history = (await t.call('GET', `${W}/order-updates/versions/`)).body as { results: Array<{ version_no: number; status: string }> };
    expect(history.results.map((v) => [v.version_no, v.status])).toEqual([
      [3, 'active'],
      [2, 'archived'],
      [1, 'archived'],
    ]);
    await expectEventually(() => expect(workflowEvents().at(-1)).toMatchObject({ change: 'committed', document: { version_no: 3, definition: { description: 'Tells a customer what happened to an order' } } }));
    expect((await t.call('POST', `${W}/order-updates/versions/2/rollback/?commit_message=back%20again`)).body).toMatchObject({ version_no: 4, commit_message: 'back again', description: 'second version' });
  });

  it('checks a document without saving it, every problem by path, those a save refuses included', async () => {
    const broken = richWorkflow();
    const nodes = (broken.tree as { nodes: Array<Record<string, unknown>> }).nodes;
    nodes[1].duration = '.wait //';
    ((nodes[4].branches as Array<{ nodes: Array<Record<string, unknown>> }>)[1].nodes[0]).template = 'no-such-template';
    const checked = await t.call('POST', `${W}/not-saved/validate/`, { ...broken, category: 'no-such-category' });
    expect(checked.status).toBe(200);
    const result = (checked.body as { validation_result: { is_valid: boolean; errors: string[] } }).validation_result;
    expect(result.is_valid).toBe(false);
    expect(result.errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^category: no notification category with slug "no-such-category"/),
        expect.stringMatching(/^tree\.nodes\[1\]\.duration: invalid jq expression/),
        expect.stringMatching(/^tree\.nodes\[4\]\.branches\[1\]\.nodes\[0\]\.template: no template with slug "no-such-template"/),
      ]),
    );
    expect((await t.call('POST', `${W}/not-saved/validate/`, richWorkflow())).body).toEqual({ validation_result: { is_valid: true, errors: [] } });
    expect((await t.call('GET', `${W}/not-saved/`)).status).toBe(404);
    expect((await t.call('POST', `${W}/not-saved/validate/`, [1])).status).toBe(400);
  });

  it('deletes a workflow, announcing it above every earlier version, and a new one with the slug goes on counting', async () => {
    const body = { ...richWorkflow(), name: 'Short-lived' };
    expect((await t.call('POST', `${W}/short-lived/?commit=true`, body)).status).toBe(201);
    const ofSlug = (): DefinitionChanged[] => workflowEvents().filter((d) => d.id === 'short-lived');
    await expectEventually(() => expect(ofSlug()).toHaveLength(1));

    expect((await t.call('DELETE', `${W}/short-lived/`)).status).toBe(204);
    await expectEventually(() => expect(ofSlug()).toHaveLength(2));
    expect(ofSlug()[1]).toMatchObject({ change: 'deleted', version: 2 });
    expect(ofSlug()[1].document).toBeUndefined();
    expect((await t.call('GET', `${W}/short-lived/`)).status).toBe(404);
    expect((await t.call('GET', `${W}/short-lived/versions/`)).status).toBe(404);
    expect((await t.call('DELETE', `${W}/short-lived/`)).status).toBe(404);
    expect((await t.call('DELETE', `${W}/Bad Slug/`)).status).toBe(400);

    // Created again: version 1 of the workflow, but its announcement comes after the delete's.
    const again = await t.call('POST', `${W}/short-lived/?commit=true`, body);
    expect(again).toMatchObject({ status: 201, body: { version_no: 1, status: 'active' } });
    await expectEventually(() => expect(ofSlug()).toHaveLength(3));
    expect(ofSlug()[2]).toMatchObject({ change: 'committed', version: 3, document: { version_no: 1 } });
    expect((await t.call('DELETE', `${W}/short-lived/`)).status).toBe(204);
  });

  it('lists workflows by mode and slug, with offset pagination', async () => {
    await t.call('POST', `${W}/draft-only/`, { ...richWorkflow(), name: 'Draft only' });
    const drafts = (await t.call('GET', `${W}/?mode=draft`)).body as { meta: { count: number }; results: Array<{ slug: string }> };
    expect(drafts.meta.count).toBe(2);
    const live = (await t.call('GET', `${W}/?mode=live`)).body as { meta: { count: number }; results: Array<{ slug: string }> };
    expect(live.results.map((w) => w.slug)).toEqual(['order-updates']);
    const filtered = (await t.call('GET', `${W}/?slugs=draft-only&limit=1`)).body as { meta: { count: number; limit: number } };
    expect(filtered.meta).toEqual({ count: 1, limit: 1, offset: 0 });
  });

  it('answers 400 for a bad slug, mode or body, 404 for unknown ones, and 401 for a bad token', async () => {
    expect((await t.call('POST', `${W}/Bad Slug/`, richWorkflow())).status).toBe(400);
    expect((await t.call('GET', `${W}/order-updates/?mode=preview`)).status).toBe(400);
    expect((await t.call('POST', `${W}/x/`, [1, 2])).status).toBe(400);
    expect((await t.call('GET', `${W}/nothing-here/`)).status).toBe(404);
    expect((await t.call('PATCH', `${W}/nothing-here/commit/`)).status).toBe(404);
    expect((await t.call('GET', 'v1/nowhere/workflow/')).status).toBe(404);
    expect((await t.call('GET', `${W}/`, undefined, 'nope')).status).toBe(401);
  });

  it("saves each node type's example of docs/reference.md, in a workflow, as a valid draft (the branch examples included)", async () => {
    const reference = readFileSync(join(__dirname, '..', '..', '..', '..', '..', 'docs', 'reference.md'), 'utf8');
    const section = reference.slice(reference.indexOf('## Node types'), reference.indexOf('## Digest schedules'));
    const examples = [...section.matchAll(/^\| `([a-z_]+)`.*\| `(\{.*\})` \|$/gm)].map((match) => JSON.parse(match[2]) as { node_type: string });
    expect(examples.map((node) => node.node_type)).toEqual(expect.arrayContaining(['branch', 'branch_waituntil', 'delay', 'send_email']));
    for (const [index, node] of examples.entries()) {
      const slug = `reference-example-${index}`;
      const saved = await t.call('POST', `${W}/${slug}/`, { name: 'Example', category: 'order-updates', trigger_type: 'api', tree: { nodes: [node] } });
      expect({ node_type: node.node_type, status: saved.status, validation_result: (saved.body as { validation_result: unknown }).validation_result }).toEqual({
        node_type: node.node_type,
        status: 201,
        validation_result: { is_valid: true, errors: [] },
      });
      expect((await t.call('DELETE', `${W}/${slug}/`)).status).toBe(204);
    }
  });

  it("keeps accounts apart: another account sees none of this account's workflows", async () => {
    expect((await t.call('GET', `${W}/order-updates/`, undefined, t.otherToken)).status).toBe(404);
    expect((await t.call('GET', `${W}/`, undefined, t.otherToken)).body).toMatchObject({ meta: { count: 0 } });
  });
});

describe('the management OpenAPI description', () => {
  let t: ManagementTestApp;

  beforeAll(async () => {
    t = await startManagementTestApp({ kind: 'embedded' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is served at /openapi.json, without authentication, and lists every resource', async () => {
    const response = await fetch(`${t.app.url}openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toBe('3.1.0');
    for (const path of [
      '/v1/workspace/',
      '/v1/{workspace}/ws_key/',
      '/v1/{workspace}/ws_api_key/',
      '/v1/{workspace}/preference_category/',
      '/v2/{workspace}/template/',
      '/v1/{workspace}/vendor/{channel}/{vendor}/',
      '/v1/{workspace}/workflow/{slug}/',
    ]) {
      expect(Object.keys(document.paths)).toContain(path);
    }
  });
});

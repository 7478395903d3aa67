import { randomUUID } from 'node:crypto';
import { DEFINITION_CHANGED_TYPE, DefinitionChanged, TOPICS, envelopeOf } from '@herald/contracts';
import { InProcessBus } from '@herald/bus';
import { TestHttpApp, openTargetDatabase, startTestHttpApp } from '@herald/runtime';
import { databaseTargets, expectEventually } from '@herald/testing';
import { Client } from 'pg';
import { workflowEngine } from '../workflow-engine.module';
import { LiveDefinitions } from './live-definitions';

describe.each(databaseTargets())('the engine definitions read model, LiveDefinitions ($kind)', (target) => {
  let app: TestHttpApp;
  let model: LiveDefinitions;
  let dispose: () => Promise<void>;
  let databaseUrl: string;
  const workspace = randomUUID();
  const other = randomUUID();

  beforeAll(async () => {
    const { url, dispose: drop } = await openTargetDatabase(target);
    dispose = drop;
    databaseUrl = url;
    app = await startTestHttpApp(workflowEngine, url, { bus: new InProcessBus() });
    model = app.get(LiveDefinitions);
  });
  afterAll(async () => {
    await app?.close();
    await app?.bus.close();
    await dispose?.();
  });

  const announce = (change: Omit<DefinitionChanged, 'workspace_slug'>): Promise<void> =>
    app.bus.publish(TOPICS.definitionChanged.name, [
      {
        key: change.workspace_id,
        value: JSON.stringify(envelopeOf(DEFINITION_CHANGED_TYPE, 1, randomUUID(), change.workspace_id, new Date(), { ...change, workspace_slug: 'staging' })),
      },
    ]);
  const workflow = (versionNo: number, extra: Record<string, unknown> = {}, enabled = true): unknown => ({
    slug: 'welcome',
    version_no: versionNo,
    is_enabled: enabled,
    hash: 'h',
    definition: { name: `v${versionNo}`, trigger_type: 'event', trigger_events: ['signed_up'], tree: { nodes: [] }, ...extra },
  });

  it('keeps the live workflow and every version it announced, ignoring an older announcement that arrives late', async () => {
    await announce({ kind: 'workflow', change: 'committed', workspace_id: workspace, id: 'welcome', version: 1, document: workflow(1) });
    await announce({ kind: 'workflow', change: 'committed', workspace_id: workspace, id: 'welcome', version: 3, document: workflow(2) });
    await announce({ kind: 'workflow', change: 'disabled', workspace_id: workspace, id: 'welcome', version: 2, document: workflow(1, {}, false) });
    await expectEventually(async () => expect((await model.liveWorkflow(workspace, 'welcome'))?.version_no).toBe(2));
    expect(await model.liveWorkflow(workspace, 'welcome')).toMatchObject({ is_enabled: true, definition: { name: 'v2' } });
    expect(await model.workflowVersion(workspace, 'welcome', 1)).toMatchObject({ name: 'v1' });
    expect(await model.workflowVersion(workspace, 'welcome', 2)).toMatchObject({ name: 'v2' });
    expect(await model.liveWorkflow(other, 'welcome')).toBeNull();
  });

  it('finds the enabled event-triggered workflows of an event, per workspace', async () => {
    expect((await model.workflowsTriggeredBy(workspace, 'signed_up')).map((w) => w.slug)).toEqual(['welcome']);
    expect(await model.workflowsTriggeredBy(workspace, 'other_event')).toEqual([]);
    expect(await model.workflowsTriggeredBy(other, 'signed_up')).toEqual([]);
    await announce({ kind: 'workflow', change: 'disabled', workspace_id: workspace, id: 'welcome', version: 4, document: workflow(2, {}, false) });
    await expectEventually(async () => expect(await model.workflowsTriggeredBy(workspace, 'signed_up')).toEqual([]));
  });

  it('keeps live templates and the category set, and forgets a deleted template', async () => {
    await announce({ kind: 'template', change: 'upserted', workspace_id: workspace, id: 'welcome-mail', version: 1, document: { slug: 'welcome-mail', channels: { email: [] } } });
    await announce({ kind: 'category', change: 'committed', workspace_id: workspace, id: 'categories', version: 1, document: { root_categories: [] } });
    const mail = { workspaceId: workspace, kind: 'template' as const, id: 'welcome-mail' };
    const categories = { workspaceId: workspace, kind: 'category' as const, id: 'categories' };
    await expectEventually(async () => expect(await model.currentDocuments([categories])).toEqual([{ root_categories: [] }]));
    expect(await model.currentDocuments([mail, { ...mail, id: 'unknown' }, { ...mail, workspaceId: other }])).toEqual([{ slug: 'welcome-mail', channels: { email: [] } }, undefined, undefined]);
    await announce({ kind: 'template', change: 'deleted', workspace_id: workspace, id: 'welcome-mail', version: 2 });
    await expectEventually(async () => expect(await model.currentDocuments([mail])).toEqual([undefined]));
    expect(await model.currentDocuments([categories])).toEqual([{ root_categories: [] }]);
  });

  it('serves definitions from its cache by version, and a version another replica applied on the next read (read-your-writes)', async () => {
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    const key = { workspaceId: workspace, kind: 'template' as const, id: 'cached-mail' };
    await announce({ kind: 'template', change: 'upserted', workspace_id: workspace, id: 'cached-mail', version: 1, document: { slug: 'cached-mail', n: 1 } });
    await expectEventually(async () => expect(await model.currentDocuments([key])).toEqual([{ slug: 'cached-mail', n: 1 }]));
    // Another replica applies version 2 to the shared table: no message reaches this one.
    await db.query(`UPDATE engine.definitions SET version = 2, document = '{"slug":"cached-mail","n":2}' WHERE workspace_id = $1 AND kind = 'template' AND id = 'cached-mail'`, [workspace]);
    expect(await model.currentDocuments([key, key])).toEqual([{ slug: 'cached-mail', n: 2 }, { slug: 'cached-mail', n: 2 }]);
    // Same version: the cached document is served (the table's document is not read again).
    await db.query(`UPDATE engine.definitions SET document = '{"slug":"cached-mail","n":"not read"}' WHERE workspace_id = $1 AND kind = 'template' AND id = 'cached-mail'`, [workspace]);
    expect(await model.currentDocuments([key])).toEqual([{ slug: 'cached-mail', n: 2 }]);
    await db.end();
  });
});

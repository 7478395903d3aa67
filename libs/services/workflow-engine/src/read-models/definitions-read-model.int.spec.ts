import { randomUUID } from 'node:crypto';
import { DEFINITION_CHANGED_TYPE, DefinitionChanged, TOPICS, envelopeOf } from '@herald/contracts';
import { InProcessBus } from '@herald/bus';
import { EmbeddedPostgres } from '@herald/database';
import { TestHttpApp, startTestHttpApp } from '@herald/runtime';
import { createTemporaryDatabase, databaseTargets, expectEventually } from '@herald/testing';
import { workflowEngine } from '../workflow-engine.module';
import { DefinitionsReadModel } from './definitions-read-model';

describe.each(databaseTargets())('the engine definitions read model ($kind)', (target) => {
  let app: TestHttpApp;
  let model: DefinitionsReadModel;
  let dispose: () => Promise<void>;
  const workspace = randomUUID();
  const other = randomUUID();

  beforeAll(async () => {
    let url: string;
    if (target.kind === 'embedded') {
      const embedded = await EmbeddedPostgres.start();
      url = embedded.url;
      dispose = () => embedded.stop();
    } else {
      const database = await createTemporaryDatabase(target.url);
      url = database.url;
      dispose = () => database.drop();
    }
    app = await startTestHttpApp(workflowEngine, url, { bus: new InProcessBus() });
    model = app.get(DefinitionsReadModel);
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
    await expectEventually(async () => expect((await model.runDefinitions(workspace, ['welcome-mail', 'unknown'])).categories).toEqual({ root_categories: [] }));
    expect([...(await model.runDefinitions(workspace, ['welcome-mail', 'unknown'])).templates.keys()]).toEqual(['welcome-mail']);
    expect((await model.runDefinitions(workspace, ['welcome-mail'])).templates.get('welcome-mail')).toMatchObject({ slug: 'welcome-mail' });
    expect((await model.runDefinitions(other, ['welcome-mail'])).templates.size).toBe(0);
    await announce({ kind: 'template', change: 'deleted', workspace_id: workspace, id: 'welcome-mail', version: 2 });
    await expectEventually(async () => expect((await model.runDefinitions(workspace, ['welcome-mail'])).templates.size).toBe(0));
    expect((await model.runDefinitions(workspace, [])).categories).toEqual({ root_categories: [] });
  });
});

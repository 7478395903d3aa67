import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { databaseTargets } from '@herald/testing';
import { openEngineDatabase } from '../testing/repository-database';
import { DefinitionKey, DefinitionRepository, StoredDefinition } from './definition.repository';

describe.each(databaseTargets())('the definition repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let definitions: DefinitionRepository;

  beforeAll(async () => {
    const opened = await openEngineDatabase(target);
    db = opened.db;
    dispose = opened.close;
    definitions = new DefinitionRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const workflow = (slug: string, versionNo: number, fields: { enabled?: boolean; trigger_type?: string; trigger_events?: string[] } = {}) => ({
    slug,
    version_no: versionNo,
    is_enabled: fields.enabled ?? true,
    definition: { name: `${slug} v${versionNo}`, trigger_type: fields.trigger_type ?? 'event', trigger_events: fields.trigger_events ?? ['signed_up'] },
  });
  const stored = (workspaceId: string, kind: StoredDefinition['kind'], id: string, version: number, document: NonNullable<unknown>): StoredDefinition => ({
    workspaceId,
    kind,
    id,
    version,
    document,
  });
  const saveWorkflow = (workspaceId: string, slug: string, version: number, document: ReturnType<typeof workflow>) =>
    definitions.save(stored(workspaceId, 'workflow', slug, version, document), { workspaceId, slug, versionNo: document.version_no, definition: document.definition });

  it('keeps the newest announcement of a definition: an older or repeated one changes nothing, a newer one replaces it', async () => {
    const workspace = randomUUID();
    const key: DefinitionKey = { workspaceId: workspace, kind: 'template', id: 'welcome-mail' };
    expect(await definitions.documentOf(key)).toBeUndefined();
    await definitions.save(stored(workspace, 'template', 'welcome-mail', 5, { n: 5 }));
    await definitions.save(stored(workspace, 'template', 'welcome-mail', 4, { n: 4 }));
    await definitions.save(stored(workspace, 'template', 'welcome-mail', 5, { n: 'five again' }));
    expect(await definitions.documentOf(key)).toEqual({ n: 5 });
    await definitions.save(stored(workspace, 'template', 'welcome-mail', 6, { n: 6 }));
    expect(await definitions.documentOf(key)).toEqual({ n: 6 });
    // The same id of another kind or workspace is another definition.
    expect(await definitions.documentOf({ ...key, kind: 'workflow' })).toBeUndefined();
    expect(await definitions.documentOf({ ...key, workspaceId: randomUUID() })).toBeUndefined();
  });

  it("keeps every workflow version as first announced, whatever the live document's version", async () => {
    const workspace = randomUUID();
    await saveWorkflow(workspace, 'welcome', 3, workflow('welcome', 2));
    // A late, older announcement leaves the live document and still brings its version, which was missing.
    await saveWorkflow(workspace, 'welcome', 1, workflow('welcome', 1));
    // A version announced again keeps its first definition.
    await saveWorkflow(workspace, 'welcome', 2, { ...workflow('welcome', 1), definition: { ...workflow('welcome', 1).definition, name: 'changed' } });
    expect(await definitions.documentOf({ workspaceId: workspace, kind: 'workflow', id: 'welcome' })).toEqual(workflow('welcome', 2));
    expect(await definitions.workflowVersion(workspace, 'welcome', 1)).toEqual(workflow('welcome', 1).definition);
    expect(await definitions.workflowVersion(workspace, 'welcome', 2)).toEqual(workflow('welcome', 2).definition);
    expect(await definitions.workflowVersion(workspace, 'welcome', 3)).toBeNull();
    expect(await definitions.workflowVersion(randomUUID(), 'welcome', 1)).toBeNull();
  });

  it('removes a definition on a deletion of a newer version only, and keeps its workflow versions', async () => {
    const workspace = randomUUID();
    const key: DefinitionKey = { workspaceId: workspace, kind: 'workflow', id: 'digest' };
    await saveWorkflow(workspace, 'digest', 3, workflow('digest', 1));
    await definitions.remove(key, 2);
    await definitions.remove(key, 3);
    expect(await definitions.documentOf(key)).toEqual(workflow('digest', 1));
    await definitions.remove({ ...key, kind: 'template' }, 9);
    await definitions.remove({ ...key, workspaceId: randomUUID() }, 9);
    expect(await definitions.documentOf(key)).toEqual(workflow('digest', 1));
    await definitions.remove(key, 4);
    expect(await definitions.documentOf(key)).toBeUndefined();
    expect(await definitions.workflowVersion(workspace, 'digest', 1)).toEqual(workflow('digest', 1).definition);
    // A redelivered older announcement after the deletion comes back: the deletion kept no version.
    await saveWorkflow(workspace, 'digest', 2, workflow('digest', 1));
    expect(await definitions.documentOf(key)).toEqual(workflow('digest', 1));
  });

  it('lists the live documents of one kind in a workspace, by id', async () => {
    const workspace = randomUUID();
    await definitions.save(stored(workspace, 'template', 'zeta', 1, { slug: 'zeta' }));
    await definitions.save(stored(workspace, 'template', 'alpha', 1, { slug: 'alpha' }));
    await definitions.save(stored(workspace, 'category', 'categories', 1, { root_categories: [] }));
    await definitions.save(stored(randomUUID(), 'template', 'beta', 1, { slug: 'beta' }));
    expect(await definitions.documentsOf(workspace, 'template')).toEqual([{ slug: 'alpha' }, { slug: 'zeta' }]);
    expect(await definitions.documentsOf(workspace, 'category')).toEqual([{ root_categories: [] }]);
    expect(await definitions.documentsOf(workspace, 'workflow')).toEqual([]);
  });

  it('finds the live, enabled, event-triggered workflows of an event, by slug, never another workspace\'s', async () => {
    const workspace = randomUUID();
    await saveWorkflow(workspace, 'welcome', 1, workflow('welcome', 1, { trigger_events: ['signed_up', 'invited'] }));
    await saveWorkflow(workspace, 'audit', 1, workflow('audit', 1));
    await saveWorkflow(workspace, 'paused', 1, workflow('paused', 1, { enabled: false }));
    await saveWorkflow(workspace, 'api-only', 1, workflow('api-only', 1, { trigger_type: 'api' }));
    await saveWorkflow(randomUUID(), 'elsewhere', 1, workflow('elsewhere', 1));
    await definitions.save(stored(workspace, 'template', 'signed_up', 1, { is_enabled: true, definition: { trigger_type: 'event', trigger_events: ['signed_up'] } }));
    expect((await definitions.workflowsTriggeredBy(workspace, 'signed_up')).map((w) => w.slug)).toEqual(['audit', 'welcome']);
    expect(await definitions.workflowsTriggeredBy(workspace, 'invited')).toEqual([workflow('welcome', 1, { trigger_events: ['signed_up', 'invited'] })]);
    expect(await definitions.workflowsTriggeredBy(workspace, 'signed')).toEqual([]);
    await saveWorkflow(workspace, 'audit', 2, workflow('audit', 2, { enabled: false }));
    expect((await definitions.workflowsTriggeredBy(workspace, 'signed_up')).map((w) => w.slug)).toEqual(['welcome']);
  });

  it("answers the stored version of each definition asked, with its document unless the cached version is the stored one, by the asked key's index", async () => {
    const workspace = randomUUID();
    await definitions.save(stored(workspace, 'template', 'mail', 2, { slug: 'mail' }));
    await definitions.save(stored(workspace, 'category', 'categories', 7, { root_categories: [] }));
    await saveWorkflow(workspace, 'welcome', 4, workflow('welcome', 1));
    expect(await definitions.changedDocuments([])).toEqual([]);
    const changed = await definitions.changedDocuments([
      { workspaceId: workspace, kind: 'template', id: 'unknown', cachedVersion: -1 },
      { workspaceId: workspace, kind: 'workflow', id: 'welcome', cachedVersion: -1 },
      { workspaceId: workspace, kind: 'template', id: 'mail', cachedVersion: 2 },
      { workspaceId: randomUUID(), kind: 'template', id: 'mail', cachedVersion: -1 },
      { workspaceId: workspace, kind: 'category', id: 'categories', cachedVersion: 6 },
      { workspaceId: workspace, kind: 'workflow', id: 'mail', cachedVersion: -1 },
    ]);
    expect([...changed].sort((a, b) => a.index - b.index)).toEqual([
      { index: 1, version: 4, document: workflow('welcome', 1) },
      { index: 2, version: 2, document: null },
      { index: 4, version: 7, document: { root_categories: [] } },
    ]);
  });
});

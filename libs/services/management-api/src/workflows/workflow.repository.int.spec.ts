import { DataSource } from 'typeorm';
import { DefinitionChanged } from '@herald/contracts';
import { databaseTargets } from '@herald/testing';
import { sha256Of } from '../hashing/canonical-hash';
import { PreferenceCategoryRepository } from '../preference-categories/preference-category.repository';
import { SchemaRepository } from '../schemas/schema.repository';
import { openManagementDatabase, definitionChangesOf } from '../testing/repository-database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { WorkflowRepository } from './workflow.repository';
import { ExpressionSyntax, TemplateCatalogue } from './workflow-validation-ports';
import { WorkflowDocument } from './workflow-view';

describe.each(databaseTargets())('the workflow repository ($kind)', (target) => {
  const clock = { now: () => new Date('2026-03-01T10:00:00Z') };
  let db: DataSource;
  let dispose: () => Promise<void>;
  let workflows: WorkflowRepository;
  let categories: PreferenceCategoryRepository;
  let schemas: SchemaRepository;
  let newWorkspace: () => Promise<ScopedWorkspace>;
  /** The live templates of each workspace, as the template catalogue port answers them. */
  const liveTemplates = new Map<string, Set<string>>();

  // The ports stand in for the expression engines and the template repository (each has specs of its own).
  const syntax: ExpressionSyntax = {
    jqSyntaxError: () => undefined,
    jsonnetSyntaxError: () => undefined,
  };
  const templates: TemplateCatalogue = { templateSlugs: async (workspaceId) => new Set(liveTemplates.get(workspaceId) ?? []) };

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    ({ db, newWorkspace } = opened);
    dispose = opened.close;
    categories = new PreferenceCategoryRepository(db, clock);
    schemas = new SchemaRepository(db, clock);
    workflows = new WorkflowRepository(db, clock, syntax, templates, categories, schemas);
  });
  afterAll(async () => {
    await dispose?.();
  });

  /** A workspace with the live category `news` and the live template `welcome`. */
  async function workspaceWithCatalogue(): Promise<ScopedWorkspace> {
    const workspace = await newWorkspace();
    await categories.saveDraft(workspace, {
      root_categories: [
        { root_category: 'transactional', sections: [{ name: 'News', categories: [{ category: 'news', name: 'News', default_preference: 'opt_in' }] }] },
      ],
    });
    await categories.commit(workspace, 'init');
    liveTemplates.set(workspace.id, new Set(['welcome']));
    return workspace;
  }

  /** The workspace's workflow announcements, in order. */
  const announced = (workspace: ScopedWorkspace): Promise<DefinitionChanged[]> => definitionChangesOf(db, 'workflow', workspace);

  /** What a workflow's announcement carries (the parts these tests read). */
  const announcedDocument = (change: DefinitionChanged) => change.document as { version_no: number; is_enabled: boolean; definition: { name: string } } | undefined;

  const valid = (name = 'Hello', template = 'welcome'): WorkflowDocument => ({
    name,
    category: 'news',
    trigger_type: 'api',
    tree: { nodes: [{ name: 'Mail', node_type: 'send_email', template }] },
  });
  const page = (limit: number, offset = 0) => ({ limit, offset });
  const statuses = async (workspace: ScopedWorkspace, slug: string): Promise<Array<{ version_no: number; status: string }>> =>
    db.query(`SELECT version_no, status FROM management.workflow_versions WHERE workspace_id = $1 AND slug = $2 ORDER BY version_no`, [workspace.id, slug]);

  it('creates a workflow with its draft and its validation result, and replaces the draft saved again', async () => {
    const workspace = await workspaceWithCatalogue();
    const saved = await workflows.saveDraft(workspace, 'hello', valid());
    expect(saved).toEqual({
      slug: 'hello',
      is_enabled: true,
      created_at: expect.any(Date),
      last_executed_at: null,
      version_no: 1,
      status: 'draft',
      document: valid(),
      validation_result: { is_valid: true, errors: [] },
      hash: sha256Of(valid()),
      commit_message: null,
      updated_by: null,
      updated_at: expect.any(Date),
      active_at: null,
    });

    // An invalid draft is kept, with its errors; is_enabled changes only when given.
    const broken = valid('Hello', 'missing');
    const replaced = await workflows.saveDraft(workspace, 'hello', broken, false);
    expect(replaced).toMatchObject({ version_no: 1, status: 'draft', is_enabled: false, document: broken, hash: sha256Of(broken) });
    expect(replaced.validation_result.is_valid).toBe(false);
    expect(replaced.validation_result.errors).toEqual([expect.stringMatching(/^tree\.nodes\[0\]\.template: /)]);
    expect(replaced.created_at).toEqual(saved.created_at);
    expect(await workflows.saveDraft(workspace, 'hello', valid())).toMatchObject({ version_no: 1, is_enabled: false, validation_result: { is_valid: true } });
    expect(await workflows.get(workspace, 'hello', 'draft')).toMatchObject({ version_no: 1, status: 'draft', document: valid() });
    await expect(workflows.get(workspace, 'hello', 'live')).rejects.toMatchObject({ code: 'not_found', message: "workflow 'hello' has no live version" });
    await expect(workflows.get(workspace, 'missing', 'draft')).rejects.toMatchObject({ code: 'not_found', message: "workflow 'missing' not found" });
    expect(await statuses(workspace, 'hello')).toEqual([{ version_no: 1, status: 'draft' }]);
    expect(await announced(workspace)).toEqual([]);
  });

  it('refuses outright a draft naming an unknown category or a malformed payload_schema, saving nothing', async () => {
    const workspace = await workspaceWithCatalogue();
    await expect(workflows.saveDraft(workspace, 'odd', { ...valid(), category: 'sports' })).rejects.toMatchObject({
      code: 'validation_error',
      fieldErrors: [{ path: 'category', message: expect.stringContaining('no notification category with slug "sports": must be one of news') }],
    });
    await expect(workflows.saveDraft(workspace, 'odd', { ...valid(), payload_schema: { schema: '', version_no: 0, extra: 1 } })).rejects.toMatchObject({
      code: 'validation_error',
      fieldErrors: [
        { path: 'payload_schema.schema', message: 'is required: a schema slug' },
        { path: 'payload_schema.version_no', message: 'must be a positive integer or null (the live version)' },
        { path: 'payload_schema.extra', message: 'is not a field of payload_schema (schema, version_no)' },
      ],
    });
    const empty = await newWorkspace();
    await expect(workflows.saveDraft(empty, 'odd', valid())).rejects.toMatchObject({
      fieldErrors: [{ path: 'category', message: expect.stringContaining('this workspace has no live categories yet') }],
    });
    await expect(workflows.get(workspace, 'odd', 'draft')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('commits the draft, announcing it in the same transaction, and keeps committed versions as history', async () => {
    const workspace = await workspaceWithCatalogue();
    await expect(workflows.commit(workspace, 'hello', null)).rejects.toMatchObject({ code: 'not_found', message: "workflow 'hello' not found" });
    const draft = await workflows.saveDraft(workspace, 'hello', valid());
    const first = await workflows.commit(workspace, 'hello', 'first');
    expect(first).toMatchObject({ slug: 'hello', version_no: 1, status: 'active', commit_message: 'first', active_at: expect.any(Date), hash: draft.hash });
    expect(await workflows.get(workspace, 'hello', 'live')).toEqual(first);
    // Draft mode shows the live version while there is no draft.
    expect(await workflows.get(workspace, 'hello', 'draft')).toEqual(first);
    await expect(workflows.commit(workspace, 'hello', 'again')).rejects.toMatchObject({ code: 'conflict', message: "workflow 'hello' has no draft to commit" });

    const second = await workflows.saveDraft(workspace, 'hello', valid('Hello again'));
    expect(second).toMatchObject({ version_no: 2, status: 'draft' });
    expect(await workflows.get(workspace, 'hello', 'live')).toEqual(first);
    const committed = await workflows.commit(workspace, 'hello', null);
    expect(committed).toMatchObject({ version_no: 2, status: 'active', commit_message: null, document: valid('Hello again') });
    expect(await statuses(workspace, 'hello')).toEqual([
      { version_no: 1, status: 'archived' },
      { version_no: 2, status: 'active' },
    ]);
    const history = await workflows.history(workspace, 'hello');
    expect(history.map((row) => [row.version_no, row.status, row.document.name])).toEqual([
      [2, 'active', 'Hello again'],
      [1, 'archived', 'Hello'],
    ]);
    await expect(workflows.history(workspace, 'missing')).rejects.toMatchObject({ code: 'not_found', message: "workflow 'missing' not found" });

    const changes = await announced(workspace);
    expect(changes).toEqual([
      {
        kind: 'workflow',
        change: 'committed',
        workspace_id: workspace.id,
        workspace_slug: workspace.slug,
        id: 'hello',
        version: 1,
        document: { slug: 'hello', version_no: 1, is_enabled: true, hash: draft.hash, definition: expect.objectContaining({ name: 'Hello', category: 'news' }), payload_schema: null },
      },
      expect.objectContaining({ change: 'committed', version: 2, document: expect.objectContaining({ version_no: 2, definition: expect.objectContaining({ name: 'Hello again' }) }) }),
    ]);
  });

  it('validates a draft again at commit, refusing one that no longer validates', async () => {
    const workspace = await workspaceWithCatalogue();
    await workflows.saveDraft(workspace, 'hello', valid());
    liveTemplates.set(workspace.id, new Set());
    await expect(workflows.commit(workspace, 'hello', null)).rejects.toMatchObject({
      code: 'validation_error',
      fieldErrors: [{ path: 'tree.nodes[0].template', message: expect.any(String) }],
    });
    // The commit writes the new errors to the draft, but in the transaction its refusal rolls
    // back: the draft keeps the result of its save (as it always has).
    const draft = await workflows.get(workspace, 'hello', 'draft');
    expect(draft).toMatchObject({ status: 'draft', validation_result: { is_valid: true, errors: [] } });
    await expect(workflows.get(workspace, 'hello', 'live')).rejects.toMatchObject({ code: 'not_found' });
    expect(await announced(workspace)).toEqual([]);
  });

  it('commits a workflow linked to a schema only when the schema is live, with the version named committed', async () => {
    const workspace = await workspaceWithCatalogue();
    const linked = (version_no?: number): WorkflowDocument => ({ ...valid(), payload_schema: { schema: 'order', ...(version_no ? { version_no } : {}) } });
    await workflows.saveDraft(workspace, 'hello', linked());
    await expect(workflows.commit(workspace, 'hello', null)).rejects.toMatchObject({
      code: 'validation_error',
      fieldErrors: [{ path: 'payload_schema.schema', message: expect.stringContaining('no live schema with slug "order"') }],
    });
    await schemas.saveDraft(workspace, 'order', { name: 'Order', description: null, json_schema: { type: 'object' } });
    await schemas.commit(workspace, 'order', null);
    await workflows.saveDraft(workspace, 'hello', linked(2));
    await expect(workflows.commit(workspace, 'hello', null)).rejects.toMatchObject({
      fieldErrors: [{ path: 'payload_schema.version_no', message: 'schema "order" has no committed version 2' }],
    });
    await workflows.saveDraft(workspace, 'hello', linked(1));
    expect(await workflows.commit(workspace, 'hello', null)).toMatchObject({ status: 'active', version_no: 1 });
    expect((await announced(workspace)).map((change) => change.document)).toEqual([expect.objectContaining({ payload_schema: { schema: 'order', version_no: 1 } })]);
  });

  it('rolls back to an earlier version as the next version, replacing a pending draft', async () => {
    const workspace = await workspaceWithCatalogue();
    await workflows.saveDraft(workspace, 'hello', valid('one'));
    await workflows.commit(workspace, 'hello', 'one');
    await workflows.saveDraft(workspace, 'hello', valid('two'));
    await workflows.commit(workspace, 'hello', 'two');
    await workflows.saveDraft(workspace, 'hello', valid('pending'));

    await expect(workflows.rollback(workspace, 'hello', 3, null)).rejects.toMatchObject({
      code: 'conflict',
      message: "version 3 of workflow 'hello' is the draft: commit it instead",
    });
    await expect(workflows.rollback(workspace, 'hello', 9, null)).rejects.toMatchObject({ code: 'not_found', message: "workflow 'hello' has no version 9" });
    const rolledBack = await workflows.rollback(workspace, 'hello', 1, null);
    expect(rolledBack).toMatchObject({ version_no: 3, status: 'active', commit_message: 'rollback to version 1', document: valid('one') });
    expect(await workflows.rollback(workspace, 'hello', 2, 'back to two')).toMatchObject({ version_no: 4, commit_message: 'back to two', document: valid('two') });
    expect(await statuses(workspace, 'hello')).toEqual([
      { version_no: 1, status: 'archived' },
      { version_no: 2, status: 'archived' },
      { version_no: 3, status: 'archived' },
      { version_no: 4, status: 'active' },
    ]);
    expect((await announced(workspace)).map((change) => [change.version, announcedDocument(change)?.version_no])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
    ]);

    // A version that no longer validates is not rolled back to.
    liveTemplates.set(workspace.id, new Set());
    await expect(workflows.rollback(workspace, 'hello', 1, null)).rejects.toMatchObject({ code: 'validation_error' });
    expect(await statuses(workspace, 'hello')).toHaveLength(4);
  });

  it('answers a version by its number, the draft included', async () => {
    const workspace = await workspaceWithCatalogue();
    await workflows.saveDraft(workspace, 'hello', valid('one'));
    await workflows.commit(workspace, 'hello', null);
    await workflows.saveDraft(workspace, 'hello', valid('two'));
    expect(await workflows.versionByNumber(workspace, 'hello', 1)).toMatchObject({ version_no: 1, status: 'active', document: valid('one') });
    expect(await workflows.versionByNumber(workspace, 'hello', 2)).toMatchObject({ version_no: 2, status: 'draft', document: valid('two') });
    await expect(workflows.versionByNumber(workspace, 'hello', 3)).rejects.toMatchObject({ code: 'not_found', message: "workflow 'hello' has no version 3" });
    await expect(workflows.versionByNumber(await newWorkspace(), 'hello', 1)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('lists the chosen version of each workflow, last changed first, a page at a time, of the slugs asked for', async () => {
    const workspace = await workspaceWithCatalogue();
    await workflows.saveDraft(workspace, 'a', valid('a'));
    await workflows.commit(workspace, 'a', null);
    await workflows.saveDraft(workspace, 'b', valid('b'));
    await workflows.saveDraft(workspace, 'c', valid('c'));
    await workflows.commit(workspace, 'c', null);
    await workflows.saveDraft(workspace, 'c', valid('c2'));
    // Known update times, so the order is not left to the clock's resolution.
    for (const [slug, at] of [['a', '2026-01-01'], ['b', '2026-01-02'], ['c', '2026-01-03']]) {
      await db.query(`UPDATE management.workflow_versions SET updated_at = $3 WHERE workspace_id = $1 AND slug = $2`, [workspace.id, slug, at]);
    }
    const shown = (rows: Array<{ slug: string; version_no: number; status: string }>) => rows.map((row) => `${row.slug}${row.version_no}:${row.status}`);

    const drafts = await workflows.list(workspace, 'draft', undefined, page(10));
    expect(drafts.count).toBe(3);
    expect(shown(drafts.rows)).toEqual(['c2:draft', 'b1:draft', 'a1:active']);
    expect(drafts.rows[2]).toEqual(await workflows.get(workspace, 'a', 'live'));
    const live = await workflows.list(workspace, 'live', undefined, page(10));
    expect({ count: live.count, rows: shown(live.rows) }).toEqual({ count: 2, rows: ['c1:active', 'a1:active'] });
    const second = await workflows.list(workspace, 'draft', undefined, page(1, 1));
    expect({ count: second.count, rows: shown(second.rows) }).toEqual({ count: 3, rows: ['b1:draft'] });
    const named = await workflows.list(workspace, 'draft', ['a', 'c', 'z'], page(10));
    expect({ count: named.count, rows: shown(named.rows) }).toEqual({ count: 2, rows: ['c2:draft', 'a1:active'] });
    expect(await workflows.list(workspace, 'draft', [], page(10))).toEqual({ count: 0, rows: [] });
    expect(await workflows.list(await newWorkspace(), 'draft', undefined, page(10))).toEqual({ count: 0, rows: [] });
  });

  it('checks a document as a save would, with the problems a save refuses, saving nothing', async () => {
    const workspace = await workspaceWithCatalogue();
    expect(await workflows.check(workspace, valid())).toEqual({ is_valid: true, errors: [] });
    const result = await workflows.check(workspace, { ...valid('Hello', 'missing'), category: 'sports', payload_schema: 'order' });
    expect(result.is_valid).toBe(false);
    // The problems a save refuses come first, then the draft's validation errors.
    expect(result.errors.slice(0, 2)).toEqual([
      'payload_schema: must be null or an object {schema, version_no}',
      expect.stringMatching(/^category: no notification category with slug "sports"/),
    ]);
    expect(result.errors.slice(2)).toEqual(expect.arrayContaining([expect.stringMatching(/^tree\.nodes\[0\]\.template: /)]));
    await expect(workflows.get(workspace, 'hello', 'draft')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('enables and disables a workflow, announcing it only once it is live', async () => {
    const workspace = await workspaceWithCatalogue();
    await expect(workflows.setEnabled(workspace, 'hello', false)).rejects.toMatchObject({ code: 'not_found', message: "workflow 'hello' not found" });
    await workflows.saveDraft(workspace, 'hello', valid());
    expect(await workflows.setEnabled(workspace, 'hello', false)).toMatchObject({ status: 'draft', version_no: 1, is_enabled: false });
    expect(await announced(workspace)).toEqual([]);

    await workflows.commit(workspace, 'hello', null);
    expect(await workflows.setEnabled(workspace, 'hello', true)).toMatchObject({ status: 'active', version_no: 1, is_enabled: true });
    await workflows.saveDraft(workspace, 'hello', valid('next'));
    // The live version is announced, not the pending draft.
    expect(await workflows.setEnabled(workspace, 'hello', false)).toMatchObject({ status: 'active', version_no: 1, is_enabled: false, document: valid() });
    expect(await workflows.get(workspace, 'hello', 'draft')).toMatchObject({ status: 'draft', is_enabled: false });
    expect((await announced(workspace)).map((change) => [change.change, change.version, announcedDocument(change)?.is_enabled, announcedDocument(change)?.definition.name])).toEqual([
      ['committed', 1, false, 'Hello'],
      ['enabled', 2, true, 'Hello'],
      ['disabled', 3, false, 'Hello'],
    ]);
  });

  it('removes a workflow with every version, announcing it above every earlier change; the slug used again counts on', async () => {
    const workspace = await workspaceWithCatalogue();
    await expect(workflows.remove(workspace, 'hello')).rejects.toMatchObject({ code: 'not_found', message: "workflow 'hello' not found" });
    await workflows.saveDraft(workspace, 'hello', valid());
    await workflows.commit(workspace, 'hello', null);
    await workflows.setEnabled(workspace, 'hello', false);
    await workflows.saveDraft(workspace, 'hello', valid('pending'));
    await workflows.remove(workspace, 'hello');
    await expect(workflows.history(workspace, 'hello')).rejects.toMatchObject({ code: 'not_found' });
    expect(await statuses(workspace, 'hello')).toEqual([]);
    expect((await announced(workspace)).map((change) => [change.change, change.version])).toEqual([
      ['committed', 1],
      ['disabled', 2],
      ['deleted', 3],
    ]);
    expect((await announced(workspace))[2]).toEqual({ kind: 'workflow', change: 'deleted', workspace_id: workspace.id, workspace_slug: workspace.slug, id: 'hello', version: 3 });

    // Created again, it starts at version 1 and enabled, its announcements above the deleted one's.
    expect(await workflows.saveDraft(workspace, 'hello', valid('again'))).toMatchObject({ version_no: 1, is_enabled: true });
    await workflows.commit(workspace, 'hello', null);
    await workflows.remove(workspace, 'hello');
    expect((await announced(workspace)).slice(3).map((change) => [change.change, change.version])).toEqual([
      ['committed', 4],
      ['deleted', 5],
    ]);
    const [deleted]: Array<{ announced_changes: number }> = await db.query(
      `SELECT announced_changes FROM management.deleted_workflows WHERE workspace_id = $1 AND slug = 'hello'`,
      [workspace.id],
    );
    expect(deleted).toEqual({ announced_changes: 5 });
  });

  it('answers the definition a replay runs: the draft, the live version, a version by number or an inline document', async () => {
    const workspace = await workspaceWithCatalogue();
    await expect(workflows.replayDefinition(workspace, 'hello', { document: valid() })).rejects.toMatchObject({ code: 'not_found', message: "workflow 'hello' not found" });
    await workflows.saveDraft(workspace, 'hello', valid('one'));
    // A draft-only workflow replays inline documents and its draft, not a live version.
    expect(await workflows.replayDefinition(workspace, 'hello', { document: valid('inline') })).toEqual({
      definition: expect.objectContaining({ name: 'inline' }),
      source: { kind: 'inline' },
    });
    await expect(workflows.replayDefinition(workspace, 'hello', { version: 'live' })).rejects.toMatchObject({ message: "workflow 'hello' has no live version" });
    await workflows.commit(workspace, 'hello', null);
    await workflows.saveDraft(workspace, 'hello', valid('two'));

    expect(await workflows.replayDefinition(workspace, 'hello', { version: 'draft' })).toEqual({
      definition: expect.objectContaining({ name: 'two' }),
      source: { kind: 'draft', version_no: 2 },
    });
    expect(await workflows.replayDefinition(workspace, 'hello', { version: 'live' })).toEqual({
      definition: expect.objectContaining({ name: 'one' }),
      source: { kind: 'live', version_no: 1 },
    });
    expect(await workflows.replayDefinition(workspace, 'hello', { version: 1 })).toEqual({
      definition: expect.objectContaining({ name: 'one' }),
      source: { kind: 'version', version_no: 1 },
    });
    await expect(workflows.replayDefinition(workspace, 'hello', { version: 7 })).rejects.toMatchObject({ code: 'not_found', message: "workflow 'hello' has no version 7" });
    await expect(workflows.replayDefinition(workspace, 'hello', { document: valid('bad', 'missing') })).rejects.toMatchObject({
      code: 'validation_error',
      fieldErrors: [{ path: 'definition.tree.nodes[0].template', message: expect.any(String) }],
    });
    await workflows.saveDraft(workspace, 'hello', valid('broken', 'missing'));
    await expect(workflows.replayDefinition(workspace, 'hello', { version: 'draft' })).rejects.toMatchObject({
      fieldErrors: [{ path: 'tree.nodes[0].template', message: expect.any(String) }],
    });
  });
});

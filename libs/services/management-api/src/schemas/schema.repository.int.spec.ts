import { DataSource } from 'typeorm';
import { DefinitionChanged } from '@herald/contracts';
import { databaseTargets } from '@herald/testing';
import { sha256Of } from '../hashing/canonical-hash';
import { openManagementDatabase, definitionChangesOf } from '../testing/repository-database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { SchemaDraft, SchemaRepository } from './schema.repository';

describe.each(databaseTargets())('the schema repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let schemas: SchemaRepository;
  let newWorkspace: () => Promise<ScopedWorkspace>;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    ({ db, newWorkspace } = opened);
    dispose = opened.close;
    schemas = new SchemaRepository(db, { now: () => new Date('2026-03-01T10:00:00Z') });
  });
  afterAll(async () => {
    await dispose?.();
  });

  /** The workspace's schema announcements, in order. */
  const announced = (workspace: ScopedWorkspace): Promise<DefinitionChanged[]> => definitionChangesOf(db, 'schema', workspace);
  const draftOf = (required: string, description: string | null = null): SchemaDraft => ({
    name: `needs ${required}`,
    description,
    json_schema: { type: 'object', required: [required] },
  });
  const page = (limit: number, offset = 0) => ({ limit, offset });

  it('creates a schema with its first draft, and replaces the draft saved again', async () => {
    const workspace = await newWorkspace();
    const saved = await schemas.saveDraft(workspace, 'order', draftOf('id', 'an order'));
    expect(saved).toEqual({
      slug: 'order',
      version_no: 1,
      status: 'draft',
      name: 'needs id',
      description: 'an order',
      json_schema: { type: 'object', required: ['id'] },
      hash: sha256Of(draftOf('id', 'an order')),
      commit_message: null,
      created_at: expect.any(Date),
      updated_at: expect.any(Date),
      committed_at: null,
    });
    const replaced = await schemas.saveDraft(workspace, 'order', draftOf('number'));
    expect(replaced).toMatchObject({ version_no: 1, status: 'draft', name: 'needs number', description: null, hash: sha256Of(draftOf('number')) });
    expect(replaced.created_at).toEqual(saved.created_at);
    expect(await schemas.get(workspace, 'order', 'draft')).toEqual(replaced);
    await expect(schemas.get(workspace, 'order', 'live')).rejects.toThrow("schema 'order' has no live version");
    await expect(schemas.get(workspace, 'missing', 'draft')).rejects.toThrow("schema 'missing' not found");
    expect(await schemas.liveSlugs(workspace.id)).toEqual(new Set());
    expect(await schemas.hasCommittedVersion(workspace.id, 'order', 1)).toBe(false);
  });

  it('commits the draft, announcing it with a count of announced changes, and keeps committed versions', async () => {
    const workspace = await newWorkspace();
    await expect(schemas.commit(workspace, 'order', 'none')).rejects.toThrow("schema 'order' not found");
    await schemas.saveDraft(workspace, 'order', draftOf('id'));
    const first = await schemas.commit(workspace, 'order', 'first');
    expect(first).toMatchObject({ slug: 'order', version_no: 1, status: 'active', commit_message: 'first', committed_at: expect.any(Date) });
    await expect(schemas.commit(workspace, 'order', 'again')).rejects.toThrow("schema 'order' has no draft to commit");
    expect(await schemas.get(workspace, 'order', 'live')).toEqual(first);
    // Draft mode shows the live version while there is no draft.
    expect(await schemas.get(workspace, 'order', 'draft')).toEqual(first);
    expect(await schemas.liveSlugs(workspace.id)).toEqual(new Set(['order']));

    const draft = await schemas.saveDraft(workspace, 'order', draftOf('number'));
    expect(draft).toMatchObject({ version_no: 2, status: 'draft' });
    expect(await schemas.get(workspace, 'order', 'draft')).toEqual(draft);
    expect(await schemas.get(workspace, 'order', 'live')).toEqual(first);
    const second = await schemas.commit(workspace, 'order', null);
    expect(second).toMatchObject({ version_no: 2, status: 'active', commit_message: null, json_schema: { type: 'object', required: ['number'] } });

    expect(await schemas.hasCommittedVersion(workspace.id, 'order', 1)).toBe(true);
    expect(await schemas.hasCommittedVersion(workspace.id, 'order', 2)).toBe(true);
    expect(await schemas.hasCommittedVersion(workspace.id, 'order', 3)).toBe(false);
    await schemas.saveDraft(workspace, 'order', draftOf('total'));
    expect(await schemas.hasCommittedVersion(workspace.id, 'order', 3)).toBe(false);

    const statuses: Array<{ version_no: number; status: string }> = await db.query(
      `SELECT version_no, status FROM management.schema_versions WHERE workspace_id = $1 ORDER BY version_no`,
      [workspace.id],
    );
    expect(statuses).toEqual([
      { version_no: 1, status: 'archived' },
      { version_no: 2, status: 'active' },
      { version_no: 3, status: 'draft' },
    ]);
    expect(await announced(workspace)).toEqual([
      expect.objectContaining({ change: 'committed', id: 'order', workspace_slug: workspace.slug, version: 1, document: { slug: 'order', version_no: 1, json_schema: { type: 'object', required: ['id'] } } }),
      expect.objectContaining({ version: 2, document: { slug: 'order', version_no: 2, json_schema: { type: 'object', required: ['number'] } } }),
    ]);
  });

  it('lists the chosen version of each schema, last changed first, a page at a time with the count', async () => {
    const workspace = await newWorkspace();
    await schemas.saveDraft(workspace, 'a', draftOf('a'));
    await schemas.commit(workspace, 'a', null);
    await schemas.saveDraft(workspace, 'b', draftOf('b'));
    await schemas.saveDraft(workspace, 'c', draftOf('c'));
    await schemas.commit(workspace, 'c', null);
    await schemas.saveDraft(workspace, 'c', draftOf('c2'));
    // Known update times, so the order is not left to the clock's resolution.
    for (const [slug, at] of [['a', '2026-01-01'], ['b', '2026-01-02'], ['c', '2026-01-03']]) {
      await db.query(`UPDATE management.schema_versions SET updated_at = $3 WHERE workspace_id = $1 AND slug = $2`, [workspace.id, slug, at]);
    }

    const drafts = await schemas.list(workspace, 'draft', page(10));
    expect(drafts.count).toBe(3);
    expect(drafts.rows.map((row) => [row.slug, row.version_no, row.status])).toEqual([
      ['c', 2, 'draft'],
      ['b', 1, 'draft'],
      ['a', 1, 'active'],
    ]);
    const live = await schemas.list(workspace, 'live', page(10));
    expect(live.count).toBe(2);
    expect(live.rows.map((row) => [row.slug, row.version_no])).toEqual([
      ['c', 1],
      ['a', 1],
    ]);
    expect(live.rows[0]).toEqual(await schemas.get(workspace, 'c', 'live'));

    const second = await schemas.list(workspace, 'draft', page(2, 1));
    expect(second.count).toBe(3);
    expect(second.rows.map((row) => row.slug)).toEqual(['b', 'a']);
    // Equal times fall back to the slug.
    await db.query(`UPDATE management.schema_versions SET updated_at = '2026-01-01' WHERE workspace_id = $1`, [workspace.id]);
    expect((await schemas.list(workspace, 'draft', page(10))).rows.map((row) => row.slug)).toEqual(['a', 'b', 'c']);
  });

  it("keeps each workspace's schemas its own", async () => {
    const workspace = await newWorkspace();
    const other = await newWorkspace();
    await schemas.saveDraft(workspace, 'order', draftOf('id'));
    await schemas.commit(workspace, 'order', null);
    expect(await schemas.list(other, 'draft', page(10))).toEqual({ count: 0, rows: [] });
    await expect(schemas.get(other, 'order', 'draft')).rejects.toThrow('not found');
    expect(await schemas.liveSlugs(other.id)).toEqual(new Set());
    expect(await schemas.hasCommittedVersion(other.id, 'order', 1)).toBe(false);
    await expect(schemas.commit(other, 'order', null)).rejects.toThrow('not found');
    expect((await schemas.saveDraft(other, 'order', draftOf('x'))).version_no).toBe(1);
  });
});

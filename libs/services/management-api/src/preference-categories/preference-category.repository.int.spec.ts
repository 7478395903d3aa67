import { DataSource } from 'typeorm';
import { DefinitionChanged } from '@herald/contracts';
import { databaseTargets } from '@herald/testing';
import { openManagementDatabase, definitionChangesOf } from '../testing/repository-database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { DEFAULT_CATEGORY_DOCUMENT } from './default-categories';
import { CATEGORY_SCHEMA_URL, PreferenceCategoryRepository } from './preference-category.repository';

describe.each(databaseTargets())('the preference category repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let categories: PreferenceCategoryRepository;
  let newWorkspace: () => Promise<ScopedWorkspace>;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    ({ db, newWorkspace } = opened);
    dispose = opened.close;
    categories = new PreferenceCategoryRepository(db, { now: () => new Date('2026-03-01T10:00:00Z') });
  });
  afterAll(async () => {
    await dispose?.();
  });

  /** The workspace's category announcements, in order. */
  const announced = (workspace: ScopedWorkspace): Promise<DefinitionChanged[]> => definitionChangesOf(db, 'category', workspace);
  /** The default document with its transactional category renamed. */
  const renamed = (name: string) => ({
    root_categories: DEFAULT_CATEGORY_DOCUMENT.root_categories.map((root) =>
      root.root_category === 'transactional'
        ? { ...root, sections: [{ name: 'Transactional', categories: [{ category: 'orders', name, default_preference: 'opt_in' }] }] }
        : root,
    ),
  });
  const broken = { root_categories: [{ root_category: 'transactional', sections: [{ name: 'x', categories: [{ category: 'Bad', name: 'n', default_preference: 'maybe' }] }] }] };

  it('answers an empty draft, no live version and no live slugs for a workspace without categories', async () => {
    const workspace = await newWorkspace();
    expect(await categories.draftOrLive(workspace)).toEqual({
      $schema: CATEGORY_SCHEMA_URL,
      root_categories: [
        { root_category: 'system', sections: [] },
        { root_category: 'transactional', sections: [] },
        { root_category: 'promotional', sections: [] },
      ],
      version_no: 0,
      status: 'draft',
      validation_result: { is_valid: true, errors: [] },
      commit_message: null,
      committed_at: null,
    });
    await expect(categories.live(workspace)).rejects.toThrow(`no live preference categories in workspace '${workspace.slug}'`);
    expect(await categories.liveCategorySlugs(workspace.id)).toEqual(new Set());
    await expect(categories.commit(workspace, 'nothing')).rejects.toThrow('there is no draft to commit');
  });

  it('saves a draft, replaces it, commits it and announces the live document; the next draft is the next version', async () => {
    const workspace = await newWorkspace();
    const first = await categories.saveDraft(workspace, renamed('Orders'));
    expect(first).toMatchObject({ version_no: 1, status: 'draft', validation_result: { is_valid: true, errors: [] }, commit_message: null, committed_at: null });
    const replaced = await categories.saveDraft(workspace, renamed('Purchases'));
    expect(replaced.version_no).toBe(1);
    expect(await categories.draftOrLive(workspace)).toEqual(replaced);

    const live = await categories.commit(workspace, 'first');
    expect(live).toEqual({ ...replaced, status: 'active', commit_message: 'first', committed_at: expect.any(Date) });
    expect(await categories.live(workspace)).toEqual(live);
    expect(await categories.draftOrLive(workspace)).toEqual(live);
    expect(await categories.liveCategorySlugs(workspace.id)).toEqual(new Set(['system', 'orders', 'promotional']));
    expect(await announced(workspace)).toEqual([
      expect.objectContaining({ change: 'committed', id: 'categories', workspace_slug: workspace.slug, version: 1, document: renamed('Purchases') }),
    ]);

    // A new draft is shown over the live version, which stays live until the draft is committed.
    const second = await categories.saveDraft(workspace, renamed('Receipts'));
    expect(second).toMatchObject({ version_no: 2, status: 'draft' });
    expect(await categories.draftOrLive(workspace)).toEqual(second);
    expect(await categories.live(workspace)).toEqual(live);
    expect((await categories.commit(workspace, 'second')).version_no).toBe(2);
    expect((await categories.live(workspace)).root_categories[1].sections[0].categories[0].name).toBe('Receipts');
    expect((await announced(workspace)).map((change) => change.version)).toEqual([1, 2]);

    const history: Array<{ version_no: number; status: string }> = await db.query(
      `SELECT version_no, status FROM management.preference_category_versions WHERE workspace_id = $1 ORDER BY version_no`,
      [workspace.id],
    );
    expect(history).toEqual([
      { version_no: 1, status: 'archived' },
      { version_no: 2, status: 'active' },
    ]);
  });

  it('keeps an invalid draft with its errors and refuses to commit it', async () => {
    const workspace = await newWorkspace();
    const saved = await categories.saveDraft(workspace, broken);
    expect(saved.status).toBe('draft');
    expect(saved.validation_result.is_valid).toBe(false);
    expect(saved.validation_result.errors).toEqual([
      expect.stringContaining('root_categories[0].sections[0].categories[0].category: must match'),
      expect.stringContaining('root_categories[0].sections[0].categories[0].default_preference: must be one of'),
    ]);
    expect(await categories.draftOrLive(workspace)).toEqual(saved);
    await expect(categories.commit(workspace, 'try')).rejects.toMatchObject({
      code: 'validation_error',
      fieldErrors: [expect.objectContaining({ path: 'root_categories[0].sections[0].categories[0].category' }), expect.anything()],
    });
    await expect(categories.live(workspace)).rejects.toThrow('no live preference categories');
    expect(await announced(workspace)).toEqual([]);
  });

  it("keeps each workspace's categories its own", async () => {
    const workspace = await newWorkspace();
    const other = await newWorkspace();
    await categories.saveDraft(workspace, renamed('Orders'));
    await categories.commit(workspace, 'first');
    expect((await categories.draftOrLive(other)).version_no).toBe(0);
    await expect(categories.live(other)).rejects.toThrow('no live preference categories');
    expect(await categories.liveCategorySlugs(other.id)).toEqual(new Set());
    expect((await categories.saveDraft(other, renamed('Others'))).version_no).toBe(1);
  });
});

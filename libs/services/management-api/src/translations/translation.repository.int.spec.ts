import { DataSource } from 'typeorm';
import { DefinitionChanged } from '@herald/contracts';
import { databaseTargets } from '@herald/testing';
import { openManagementDatabase, definitionChangesOf } from '../testing/repository-database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { TranslationRepository } from './translation.repository';

describe.each(databaseTargets())('the translation repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let translations: TranslationRepository;
  let newWorkspace: () => Promise<ScopedWorkspace>;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    ({ db, newWorkspace } = opened);
    dispose = opened.close;
    translations = new TranslationRepository(db, { now: () => new Date('2026-03-01T10:00:00Z') });
  });
  afterAll(async () => {
    await dispose?.();
  });

  /** The workspace's translation announcements, in order. */
  const announced = (workspace: ScopedWorkspace): Promise<DefinitionChanged[]> => definitionChangesOf(db, 'translation', workspace);
  const file = (filename: string, locale: string, namespace: string | null, content: Record<string, string>) => ({ filename, locale, namespace, content });
  /** The time as the API shows it: UTC, to the microsecond. */
  const MICROSECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

  it('keeps drafts per file, by file name, replacing one saved again', async () => {
    const workspace = await newWorkspace();
    expect(await translations.drafts(workspace.id)).toEqual([]);

    const saved = await translations.saveDraft(workspace, file('fr.json', 'fr', null, { greeting: 'Bonjour' }));
    expect(saved).toEqual({ filename: 'fr.json', locale: 'fr', namespace: null, content: { greeting: 'Bonjour' }, is_deleted: false, updated_at: expect.stringMatching(MICROSECONDS) });
    await translations.saveDraft(workspace, file('auth.de.json', 'de', 'auth', { login: 'Anmelden' }));
    const replaced = await translations.saveDraft(workspace, file('fr.json', 'fr', null, { greeting: 'Salut' }));
    expect(replaced.content).toEqual({ greeting: 'Salut' });
    expect(replaced.updated_at >= saved.updated_at).toBe(true);

    expect((await translations.drafts(workspace.id)).map((draft) => [draft.filename, draft.namespace, draft.content])).toEqual([
      ['auth.de.json', 'auth', { login: 'Anmelden' }],
      ['fr.json', null, { greeting: 'Salut' }],
    ]);
    // A caller's transaction sees its own writes.
    await db.transaction(async (tx) => {
      await tx.query(`INSERT INTO management.translation_drafts (workspace_id, filename, locale, content) VALUES ($1, 'it.json', 'it', '{}')`, [workspace.id]);
      expect((await translations.drafts(workspace.id, tx)).map((draft) => draft.filename)).toEqual(['auth.de.json', 'fr.json', 'it.json']);
    });
  });

  it('commits the drafts as the next version, announces it, and answers 409 with nothing to commit', async () => {
    const workspace = await newWorkspace();
    expect(await translations.live(workspace.id)).toEqual({ version_no: 0, files: [] });
    await expect(translations.commit(workspace, 'nothing')).rejects.toThrow('there is no translation draft to commit');

    const fr = await translations.saveDraft(workspace, file('fr.json', 'fr', null, { greeting: 'Bonjour' }));
    await translations.saveDraft(workspace, file('de.json', 'de', null, { greeting: 'Hallo' }));
    const { before, after } = await translations.commit(workspace, 'first');
    expect(before).toEqual({ version_no: 0, files: [] });
    expect(after.version_no).toBe(1);
    expect(after.files.map((each) => each.filename)).toEqual(['de.json', 'fr.json']);
    expect(after.files[1]).toEqual({ ...file('fr.json', 'fr', null, { greeting: 'Bonjour' }), updated_at: fr.updated_at });
    expect(await translations.drafts(workspace.id)).toEqual([]);
    expect(await translations.live(workspace.id)).toEqual(after);
    expect(await translations.version(workspace.id, 1)).toEqual(after);
    expect(await translations.version(workspace.id, 2)).toBeUndefined();
    await db.transaction(async (tx) => expect(await translations.live(workspace.id, tx)).toEqual(after));

    const [{ commit_message }] = await db.query(`SELECT commit_message FROM management.translation_versions WHERE workspace_id = $1 AND version_no = 1`, [workspace.id]);
    expect(commit_message).toBe('first');
    expect(await announced(workspace)).toEqual([
      expect.objectContaining({
        change: 'committed',
        id: 'translations',
        workspace_slug: workspace.slug,
        version: 1,
        document: { version_no: 1, files: [file('de.json', 'de', null, { greeting: 'Hallo' }), file('fr.json', 'fr', null, { greeting: 'Bonjour' })] },
      }),
    ]);
  });

  it('deletes a draft never committed at once, marks a live file for deletion, and answers 404 for no such file', async () => {
    const workspace = await newWorkspace();
    await translations.saveDraft(workspace, file('fr.json', 'fr', null, { greeting: 'Bonjour' }));
    await translations.commit(workspace, null);

    await translations.saveDraft(workspace, file('es.json', 'es', null, { greeting: 'Hola' }));
    await translations.deleteDraft(workspace, 'es.json');
    expect(await translations.drafts(workspace.id)).toEqual([]);
    await expect(translations.deleteDraft(workspace, 'es.json')).rejects.toThrow("translation file 'es.json' not found");

    // A live file with no draft gets a deletion draft of its live content.
    await translations.deleteDraft(workspace, 'fr.json');
    expect(await translations.drafts(workspace.id)).toEqual([
      { filename: 'fr.json', locale: 'fr', namespace: null, content: { greeting: 'Bonjour' }, is_deleted: true, updated_at: expect.stringMatching(MICROSECONDS) },
    ]);
    // Saving it again undoes the deletion; deleting it then keeps the draft's content, only marked.
    await translations.saveDraft(workspace, file('fr.json', 'fr', null, { greeting: 'Salut' }));
    expect((await translations.drafts(workspace.id))[0]).toMatchObject({ is_deleted: false, content: { greeting: 'Salut' } });
    await translations.deleteDraft(workspace, 'fr.json');
    expect((await translations.drafts(workspace.id))[0]).toMatchObject({ is_deleted: true, content: { greeting: 'Salut' } });

    const { after } = await translations.commit(workspace, 'drop fr');
    expect(after).toEqual({ version_no: 2, files: [] });
    await expect(translations.deleteDraft(workspace, 'fr.json')).rejects.toThrow('not found');
  });

  it('rolls back to a version as the next one, dropping the drafts, and answers 404 for no such version', async () => {
    const workspace = await newWorkspace();
    await translations.saveDraft(workspace, file('fr.json', 'fr', null, { greeting: 'Bonjour' }));
    const first = (await translations.commit(workspace, null)).after;
    await translations.saveDraft(workspace, file('fr.json', 'fr', null, { greeting: 'Salut' }));
    const second = (await translations.commit(workspace, null)).after;
    await translations.saveDraft(workspace, file('de.json', 'de', null, { greeting: 'Hallo' }));

    const { before, after } = await translations.rollback(workspace, 1);
    expect(before).toEqual(second);
    expect(after).toEqual({ version_no: 3, files: first.files });
    expect(await translations.live(workspace.id)).toEqual(after);
    expect(await translations.drafts(workspace.id)).toEqual([]);
    const [{ commit_message }] = await db.query(`SELECT commit_message FROM management.translation_versions WHERE workspace_id = $1 AND version_no = 3`, [workspace.id]);
    expect(commit_message).toBe('rollback to version 1');
    expect((await announced(workspace)).map((change) => [change.version, (change.document as { files: Array<{ content: unknown }> }).files.map((each) => each.content)])).toEqual([
      [1, [{ greeting: 'Bonjour' }]],
      [2, [{ greeting: 'Salut' }]],
      [3, [{ greeting: 'Bonjour' }]],
    ]);

    await expect(translations.rollback(workspace, 9)).rejects.toThrow('translation version 9 not found');
    expect((await translations.live(workspace.id)).version_no).toBe(3);
  });

  it('never loses a draft saved again while a commit is under way: the save waits for the commit and stays a draft', async () => {
    const workspace = await newWorkspace();
    await translations.saveDraft(workspace, file('fr.json', 'fr', null, { greeting: 'Bonjour' }));
    // A commit under way, as commit() runs it: the workspace row taken, the drafts read, then deleted.
    let saved = false;
    let save: Promise<unknown> | undefined;
    await db.transaction(async (tx) => {
      await tx.query(`SELECT id FROM management.workspaces WHERE id = $1 FOR UPDATE`, [workspace.id]);
      const read: Array<{ content: Record<string, string> }> = await tx.query(`SELECT content FROM management.translation_drafts WHERE workspace_id = $1`, [workspace.id]);
      expect(read.map((row) => row.content)).toEqual([{ greeting: 'Bonjour' }]);
      save = translations.saveDraft(workspace, file('fr.json', 'fr', null, { greeting: 'Salut' })).then(() => (saved = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(saved).toBe(false);
      await tx.query(`DELETE FROM management.translation_drafts WHERE workspace_id = $1`, [workspace.id]);
    });
    await save;
    // The edit made during the commit is the draft now, for the next commit.
    expect((await translations.drafts(workspace.id)).map((draft) => draft.content)).toEqual([{ greeting: 'Salut' }]);
  });

  it("keeps each workspace's files its own", async () => {
    const workspace = await newWorkspace();
    const other = await newWorkspace();
    await translations.saveDraft(workspace, file('fr.json', 'fr', null, { greeting: 'Bonjour' }));
    await translations.commit(workspace, null);
    await translations.saveDraft(workspace, file('de.json', 'de', null, { greeting: 'Hallo' }));

    expect(await translations.drafts(other.id)).toEqual([]);
    expect(await translations.live(other.id)).toEqual({ version_no: 0, files: [] });
    expect(await translations.version(other.id, 1)).toBeUndefined();
    await expect(translations.deleteDraft(other, 'fr.json')).rejects.toThrow('not found');
    await expect(translations.rollback(other, 1)).rejects.toThrow('not found');
    await expect(translations.commit(other, null)).rejects.toThrow('no translation draft');
  });
});

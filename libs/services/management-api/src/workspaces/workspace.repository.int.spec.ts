import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { databaseTargets } from '@herald/testing';
import { MANAGEMENT_OUTBOX } from '../management-events/management-events';
import { openManagementDatabase } from '../testing/repository-database';
import { WorkspaceRepository, lockWorkspaceForWrites } from './workspace.repository';

describe.each(databaseTargets())('the workspace repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let workspaces: WorkspaceRepository;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    db = opened.db;
    dispose = opened.close;
    workspaces = new WorkspaceRepository(db, { now: () => new Date('2026-03-01T10:00:00Z') });
  });
  afterAll(async () => {
    await dispose?.();
  });

  async function newAccount(): Promise<string> {
    const id = randomUUID();
    await db.query(`INSERT INTO management.accounts (id, name) VALUES ($1, 'test')`, [id]);
    return id;
  }

  it('creates a workspace with the columns the database fills and its default categories; a taken slug is refused without an error', async () => {
    const account = await newAccount();
    const created = await workspaces.create(account, { slug: 'staging', name: 'Staging', description: 'the staging one', mode: 'sandbox' });
    expect(created).toEqual({
      id: expect.any(String),
      accountId: account,
      slug: 'staging',
      name: 'Staging',
      description: 'the staging one',
      mode: 'sandbox',
      dataCenter: {},
      createdAt: expect.any(Date),
    });
    const categories = (await db.query(`SELECT status FROM management.preference_category_versions WHERE workspace_id = $1`, [created?.id])) as unknown[];
    expect(categories).toEqual([{ status: 'active' }]);

    expect(await workspaces.create(account, { slug: 'staging', name: 'Again', description: '', mode: 'live' })).toBeNull();
    expect((await workspaces.list(account, { limit: 10, offset: 0 })).workspaces.map((workspace) => workspace.name)).toEqual(['Staging']);
  });

  it("finds a workspace by slug for its own account only, and lists an account's workspaces page by page", async () => {
    const [mine, theirs] = [await newAccount(), await newAccount()];
    for (const slug of ['a', 'b', 'c']) await workspaces.create(mine, { slug, name: slug.toUpperCase(), description: '', mode: 'test' });
    const other = await workspaces.create(theirs, { slug: 'a', name: 'Theirs', description: '', mode: 'test' });

    expect(await workspaces.findOwned(mine, 'a')).toEqual({ id: expect.any(String), slug: 'a' });
    expect((await workspaces.findOwned(theirs, 'a'))?.id).toBe(other?.id);
    expect(await workspaces.findOwned(theirs, 'b')).toBeNull();

    const first = await workspaces.list(mine, { limit: 2, offset: 0 });
    const second = await workspaces.list(mine, { limit: 2, offset: 2 });
    expect(first.count).toBe(3);
    expect([...first.workspaces, ...second.workspaces].map((workspace) => workspace.slug)).toEqual(['a', 'b', 'c']);
  });

  it("creates a workspace without categories in the caller's transaction, and later seeds every workspace that has none", async () => {
    const account = await newAccount();
    const [first, second] = await db.transaction(async (tx) => [
      await workspaces.createWithoutCategories(tx, account, { slug: 'main', name: 'main', mode: 'sandbox' }),
      await workspaces.createWithoutCategories(tx, account, { slug: 'other', name: 'Other', mode: 'live' }),
    ]);
    expect(first).toEqual({ id: expect.any(String), slug: 'main' });
    expect((await workspaces.list(account, { limit: 10, offset: 0 })).workspaces).toEqual([
      expect.objectContaining({ id: first.id, accountId: account, slug: 'main', name: 'main', mode: 'sandbox', description: '', dataCenter: {} }),
      expect.objectContaining({ id: second.id, slug: 'other', name: 'Other', mode: 'live' }),
    ]);
    const categoriesOf = (id: string): Promise<unknown[]> => db.query(`SELECT version_no, status FROM management.preference_category_versions WHERE workspace_id = $1`, [id]);
    expect(await categoriesOf(first.id)).toEqual([]);
    // A taken slug fails (and its transaction with it): the first start's workspace is the account's first.
    await expect(db.transaction((tx) => workspaces.createWithoutCategories(tx, account, { slug: 'main', name: 'again', mode: 'test' }))).rejects.toThrow();
    const seededWithCategories = await workspaces.create(account, { slug: 'seeded', name: 'S', description: '', mode: 'test' });

    // Other tests' workspaces all have categories: only these two are seeded.
    expect(await workspaces.seedMissingDefaultCategories()).toBe(2);
    expect(await categoriesOf(first.id)).toEqual([{ version_no: 1, status: 'active' }]);
    expect(await categoriesOf(second.id)).toEqual([{ version_no: 1, status: 'active' }]);
    expect(await categoriesOf(seededWithCategories!.id)).toEqual([{ version_no: 1, status: 'active' }]);
    const announced: Array<{ value: string }> = await db.query(`SELECT value FROM ${MANAGEMENT_OUTBOX} WHERE value LIKE $1`, [`%${first.id}%`]);
    expect(announced.map((row) => (JSON.parse(row.value) as { payload: { kind: string; change: string } }).payload)).toEqual([
      expect.objectContaining({ kind: 'category', change: 'committed', workspace_id: first.id, workspace_slug: 'main', version: 1 }),
    ]);
    expect(await workspaces.seedMissingDefaultCategories()).toBe(0);
  });

  it('answers the accounts that have a workspace with a slug', async () => {
    const [mine, theirs] = [await newAccount(), await newAccount()];
    const slug = `shared-${randomUUID().slice(0, 8)}`;
    await workspaces.create(mine, { slug, name: 'Mine', description: '', mode: 'test' });
    expect(await workspaces.accountsWithSlug(slug)).toEqual([mine]);
    await workspaces.create(theirs, { slug, name: 'Theirs', description: '', mode: 'test' });
    expect((await workspaces.accountsWithSlug(slug)).sort()).toEqual([mine, theirs].sort());
    expect(await workspaces.accountsWithSlug('no-such-workspace')).toEqual([]);
  });

  it("locks a workspace's row for writes until the transaction ends", async () => {
    const account = await newAccount();
    const workspace = await workspaces.create(account, { slug: 'locked', name: 'L', description: '', mode: 'test' });
    const order: string[] = [];
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstLocked!: () => void;
    const locked = new Promise<void>((resolve) => (firstLocked = resolve));
    const first = db.transaction(async (tx) => {
      await lockWorkspaceForWrites(tx, workspace!.id);
      firstLocked();
      await firstHolds;
      order.push('first done');
    });
    await locked;
    const second = db.transaction(async (tx) => {
      await lockWorkspaceForWrites(tx, workspace!.id);
      order.push('second locked');
    });
    // The second waits for the first's row lock, whatever the time it is given to run.
    await new Promise((resolve) => setTimeout(resolve, 100));
    releaseFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(['first done', 'second locked']);
  });
});

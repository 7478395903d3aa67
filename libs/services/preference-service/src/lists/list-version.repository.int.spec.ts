import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AudienceChanged } from '@herald/contracts';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { databaseTargets } from '@herald/testing';
import { AUDIENCE_OUTBOX } from '../outbox/audience-events';
import { openAudienceDatabase } from '../testing/repository-database';
import { ListVersionRepository } from './list-version.repository';
import { ListRepository } from './list.repository';

describe.each(databaseTargets())('the list version repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let lists: ListRepository;
  let versions: ListVersionRepository;

  beforeAll(async () => {
    const opened = await openAudienceDatabase(target);
    db = opened.db;
    dispose = opened.close;
    lists = new ListRepository(db, { now: () => new Date('2026-03-01T10:00:00Z') });
    versions = new ListVersionRepository(db, lists);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const members = (...distinct_ids: string[]) => ({ distinct_ids });

  /** A new workspace with a list `news` whose members are the given ones. */
  async function listWith(...distinctIds: string[]): Promise<AuthenticatedWorkspace> {
    const id = randomUUID();
    const ws = { id, slug: `ws-${id.slice(0, 8)}` };
    await lists.upsert(ws, { list_id: 'news', list_name: 'News' });
    if (distinctIds.length > 0) await lists.add(ws, 'news', members(...distinctIds));
    return ws;
  }

  async function membersOf(ws: AuthenticatedWorkspace): Promise<string[]> {
    return (await lists.page(ws, 'news', { limit: 1000, sort: 'id' })).results.map((entry) => entry.distinct_id);
  }

  async function membershipChanges(ws: AuthenticatedWorkspace): Promise<AudienceChanged[]> {
    const rows: Array<{ value: string }> = await db.query(`SELECT value FROM ${AUDIENCE_OUTBOX} ORDER BY id`);
    return rows
      .map((row) => JSON.parse(row.value) as { workspace_id: string; payload: AudienceChanged })
      .filter((envelope) => envelope.workspace_id === ws.id && envelope.payload.kind === 'list_subscribers')
      .map((envelope) => envelope.payload);
  }

  it('starts an empty draft with a new version id, and reads it back with its own member count', async () => {
    const ws = await listWith('ana', 'bo');
    const draft = await versions.start(ws, 'news');
    expect(draft).toMatchObject({ list_id: 'news', list_name: 'News', status: 'draft', subscribers_count: 0, version_id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/) });
    const other = await versions.start(ws, 'news');
    expect(other.version_id).not.toBe(draft.version_id);

    expect(await versions.add(ws, 'news', draft.version_id!, members('cy', 'dee', 'cy'))).toBe(2);
    expect(await versions.add(ws, 'news', draft.version_id!, members('dee', 'eve'))).toBe(1);
    expect(await versions.remove(ws, 'news', draft.version_id!, members('eve', 'zed'))).toBe(1);
    expect(await versions.read(ws, 'news', draft.version_id!)).toEqual({ ...draft, subscribers_count: 2 });
    expect(await versions.read(ws, 'news', other.version_id!)).toMatchObject({ status: 'draft', subscribers_count: 0 });
    // The list itself is untouched until the sync finishes.
    expect(await membersOf(ws)).toEqual(['ana', 'bo']);
    expect((await lists.read(ws, 'news')).subscribers_count).toBe(2);
  });

  it("finishing a sync makes the draft's members the list's, announces the difference and drops the draft", async () => {
    const ws = await listWith('ana', 'bo', 'cy');
    const { version_id: versionId } = await versions.start(ws, 'news');
    await versions.add(ws, 'news', versionId!, members('dee', 'bo', 'ana'));
    const finished = await versions.finish(ws, 'news', versionId!);
    expect(finished).toMatchObject({ list_id: 'news', status: 'active', subscribers_count: 3, version_id: null });
    expect(await membersOf(ws)).toEqual(['ana', 'bo', 'dee']);
    expect(await lists.read(ws, 'news')).toEqual({ ...finished, version_id: undefined, status: 'active' });
    expect((await membershipChanges(ws)).slice(-1)).toEqual([{ kind: 'list_subscribers', workspace_slug: ws.slug, list_id: 'news', added: ['dee'], removed: ['cy'] }]);
    await expect(versions.read(ws, 'news', versionId!)).rejects.toThrow(`version_id ${versionId} not found for list_id news`);
  });

  it('finishing an empty draft empties the list; one that changes nothing announces nothing', async () => {
    const ws = await listWith('ana', 'bo');
    const same = await versions.start(ws, 'news');
    await versions.add(ws, 'news', same.version_id!, members('bo', 'ana'));
    const before = (await membershipChanges(ws)).length;
    expect(await versions.finish(ws, 'news', same.version_id!)).toMatchObject({ subscribers_count: 2 });
    expect(await membershipChanges(ws)).toHaveLength(before);

    const empty = await versions.start(ws, 'news');
    expect(await versions.finish(ws, 'news', empty.version_id!)).toMatchObject({ subscribers_count: 0, version_id: null });
    expect(await membersOf(ws)).toEqual([]);
    expect((await membershipChanges(ws)).slice(-1)).toEqual([{ kind: 'list_subscribers', workspace_slug: ws.slug, list_id: 'news', added: [], removed: ['ana', 'bo'] }]);
  });

  it('deletes a draft with its members, leaving the list as it was', async () => {
    const ws = await listWith('ana');
    const { version_id: versionId } = await versions.start(ws, 'news');
    await versions.add(ws, 'news', versionId!, members('bo'));
    await versions.delete(ws, 'news', versionId!);
    await expect(versions.read(ws, 'news', versionId!)).rejects.toThrow('not found for list_id news');
    await expect(versions.delete(ws, 'news', versionId!)).rejects.toThrow('not found for list_id news');
    expect(await membersOf(ws)).toEqual(['ana']);
    const [{ n }]: Array<{ n: number }> = await db.query(`SELECT count(*)::int AS n FROM audience.list_version_subscribers WHERE workspace_id = $1`, [ws.id]);
    expect(n).toBe(0);
  });

  it('names a missing list as such, and a missing version of an existing list as a missing version', async () => {
    const ws = await listWith();
    const { version_id: versionId } = await versions.start(ws, 'news');
    for (const call of [
      () => versions.read(ws, 'news', 'NOPE'),
      () => versions.add(ws, 'news', 'NOPE', members('a')),
      () => versions.remove(ws, 'news', 'NOPE', members('a')),
      () => versions.finish(ws, 'news', 'NOPE'),
      () => versions.delete(ws, 'news', 'NOPE'),
    ]) {
      await expect(call()).rejects.toThrow('version_id NOPE not found for list_id news');
    }
    for (const call of [
      () => versions.start(ws, 'other'),
      () => versions.read(ws, 'other', versionId!),
      () => versions.add(ws, 'other', versionId!, members('a')),
      () => versions.remove(ws, 'other', versionId!, members('a')),
      () => versions.finish(ws, 'other', versionId!),
      () => versions.delete(ws, 'other', versionId!),
    ]) {
      await expect(call()).rejects.toThrow('list_id: other not found');
    }
    // Another workspace's draft is not this one's.
    const stranger = await listWith();
    await expect(versions.read(stranger, 'news', versionId!)).rejects.toThrow(`version_id ${versionId} not found`);
  });

  it('drops the drafts of a deleted list', async () => {
    const ws = await listWith('ana');
    const { version_id: versionId } = await versions.start(ws, 'news');
    await lists.delete(ws, 'news');
    await lists.upsert(ws, { list_id: 'news' });
    await expect(versions.read(ws, 'news', versionId!)).rejects.toThrow(`version_id ${versionId} not found`);
  });
});

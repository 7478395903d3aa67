import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AudienceChanged, AudienceSubject, HeraldError } from '@herald/contracts';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { databaseTargets } from '@herald/testing';
import { AUDIENCE_OUTBOX } from '../outbox/audience-events';
import { ProfileDocument } from '../profiles/profile-document';
import { ProfileRepository } from '../profiles/profile.repository';
import { openAudienceDatabase } from '../testing/repository-database';
import { mergeDocuments } from './user-merge';
import { UserMergeRepository } from './user-merge.repository';

describe.each(databaseTargets())('the user merge repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let profiles: ProfileRepository;
  let merges: UserMergeRepository;
  const now = new Date('2026-03-01T10:00:00Z');

  beforeAll(async () => {
    const opened = await openAudienceDatabase(target);
    db = opened.db;
    dispose = opened.close;
    profiles = new ProfileRepository(db, { now: () => now });
    merges = new UserMergeRepository(db, profiles);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const newWorkspace = (): AuthenticatedWorkspace => {
    const id = randomUUID();
    return { id, slug: `ws-${id.slice(0, 8)}` };
  };
  const user = (distinct_id: string): AudienceSubject => ({ type: 'user', distinct_id });
  const save = (ws: AuthenticatedWorkspace, distinctId: string, document: ProfileDocument, tenantId?: string) =>
    profiles.mutate(ws, user(distinctId), tenantId, () => ({ ok: true, value: document }), { create: true });
  const documentOf = async (ws: AuthenticatedWorkspace, distinctId: string): Promise<ProfileDocument> => {
    const { properties, channels } = await profiles.read(ws, user(distinctId));
    return { properties, channels };
  };

  /** The workspace's profile announcements, in order. */
  async function announced(ws: AuthenticatedWorkspace): Promise<AudienceChanged[]> {
    const rows: Array<{ value: string }> = await db.query(`SELECT value FROM ${AUDIENCE_OUTBOX} ORDER BY id`);
    return rows
      .map((row) => JSON.parse(row.value) as { workspace_id: string; payload: AudienceChanged })
      .filter((envelope) => envelope.workspace_id === ws.id)
      .map((envelope) => envelope.payload);
  }

  it("writes the primary's profile as combined from both, announces it, and leaves the secondary", async () => {
    const ws = newWorkspace();
    await save(ws, 'primary', { properties: { plan: 'pro', name: 'Primary' }, channels: { $email: ['p@example.com'] } });
    await save(ws, 'secondary', { properties: { name: 'Secondary', company: 'Acme' }, channels: { $email: ['s@example.com', 'p@example.com'], $sms: ['+15555550100'] } });
    // Not the secondary's tenant profile: the merge reads its global one.
    await save(ws, 'secondary', { properties: { tier: 'tenant-only' }, channels: {} }, 'acme');
    const before = (await announced(ws)).length;

    const merged = await merges.mergeInto(ws, 'primary', 'secondary', mergeDocuments);
    const expected = {
      properties: { plan: 'pro', name: 'Primary', company: 'Acme' },
      channels: { $email: ['p@example.com', 's@example.com'], $sms: ['+15555550100'] },
    };
    expect(merged).toMatchObject(expected);
    expect(merged.updated_at).toBeInstanceOf(Date);
    expect(await documentOf(ws, 'primary')).toEqual(expected);
    expect(await documentOf(ws, 'secondary')).toEqual({
      properties: { name: 'Secondary', company: 'Acme' },
      channels: { $email: ['s@example.com', 'p@example.com'], $sms: ['+15555550100'] },
    });
    expect((await announced(ws)).slice(before)).toEqual([{ kind: 'profile', change: 'upserted', workspace_slug: ws.slug, subject: user('primary'), profile: expected }]);
  });

  it('hands `combine` the primary and the secondary as stored', async () => {
    const ws = newWorkspace();
    await save(ws, 'a', { properties: { x: '1' }, channels: {} });
    await save(ws, 'b', { properties: { y: '2' }, channels: { $push: ['t'] } });
    const seen: ProfileDocument[][] = [];
    const merged = await merges.mergeInto(ws, 'a', 'b', (primary, secondary) => {
      seen.push([{ properties: primary.properties, channels: primary.channels }, { properties: secondary.properties, channels: secondary.channels }]);
      return { properties: { only: 'this' }, channels: {} };
    });
    expect(seen).toEqual([[{ properties: { x: '1' }, channels: {} }, { properties: { y: '2' }, channels: { $push: ['t'] } }]]);
    expect(merged).toMatchObject({ properties: { only: 'this' }, channels: {} });
    expect(await documentOf(ws, 'a')).toEqual({ properties: { only: 'this' }, channels: {} });
  });

  it('answers 404 naming from_user_id when the secondary does not exist, writing nothing', async () => {
    const ws = newWorkspace();
    await save(ws, 'alone', { properties: { kept: 'yes' }, channels: {} });
    // Another workspace's user of that id is not the secondary.
    await save(newWorkspace(), 'nobody', { properties: {}, channels: {} });
    const before = await announced(ws);
    const failure = await merges.mergeInto(ws, 'alone', 'nobody', mergeDocuments).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HeraldError);
    expect(failure).toMatchObject({ code: 'not_found', message: "from_user_id: [distinct_id: 'nobody'] not found" });
    expect(await documentOf(ws, 'alone')).toEqual({ properties: { kept: 'yes' }, channels: {} });
    expect(await announced(ws)).toEqual(before);
  });

  it("answers the user's 404 when the primary does not exist, creating nothing", async () => {
    const ws = newWorkspace();
    await save(ws, 'other', { properties: { a: '1' }, channels: {} });
    const before = await announced(ws);
    const failure = await merges.mergeInto(ws, 'nobody', 'other', mergeDocuments).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'not_found', message: "user 'nobody' not found" });
    await expect(profiles.read(ws, user('nobody'))).rejects.toThrow("user 'nobody' not found");
    expect(await documentOf(ws, 'other')).toEqual({ properties: { a: '1' }, channels: {} });
    expect(await announced(ws)).toEqual(before);
  });
});

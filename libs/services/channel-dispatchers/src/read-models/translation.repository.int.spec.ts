import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { databaseTargets } from '@herald/testing';
import { openDispatchDatabase } from '../testing/repository-database';
import { TranslationRepository } from './translation.repository';

describe.each(databaseTargets())('the translation repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let translations: TranslationRepository;

  beforeAll(async () => {
    const opened = await openDispatchDatabase(target);
    db = opened.db;
    dispose = opened.close;
    translations = new TranslationRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  it('answers none before a workspace has any, then the newest version announced, whatever order the versions arrive in', async () => {
    const workspace = randomUUID();
    expect(await translations.liveOf(workspace)).toEqual({});
    await translations.apply(workspace, 2, { en: { greeting: 'Hello' }, fr: { greeting: 'Bonjour' } });
    expect(await translations.liveOf(workspace)).toEqual({ en: { greeting: 'Hello' }, fr: { greeting: 'Bonjour' } });
    // Older, and the same version read again: neither overwrites.
    await translations.apply(workspace, 1, { en: { greeting: 'Hi' } });
    await translations.apply(workspace, 2, { en: { greeting: 'Hey' } });
    expect(await translations.liveOf(workspace)).toEqual({ en: { greeting: 'Hello' }, fr: { greeting: 'Bonjour' } });
    await translations.apply(workspace, 3, { en: { 'task:created': 'Task created' } });
    expect(await translations.liveOf(workspace)).toEqual({ en: { 'task:created': 'Task created' } });
  });

  it("keeps each workspace's translations apart, and an emptied one answers none", async () => {
    const emptied = randomUUID();
    const other = randomUUID();
    await translations.apply(emptied, 1, { en: { greeting: 'Hello' } });
    await translations.apply(other, 1, { de: { greeting: 'Hallo' } });
    await translations.apply(emptied, 2, {});
    expect(await translations.liveOf(emptied)).toEqual({});
    expect(await translations.liveOf(other)).toEqual({ de: { greeting: 'Hallo' } });
  });
});

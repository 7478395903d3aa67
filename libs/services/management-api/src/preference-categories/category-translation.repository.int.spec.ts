import { DataSource } from 'typeorm';
import { DefinitionChanged } from '@herald/contracts';
import { databaseTargets } from '@herald/testing';
import { openManagementDatabase, definitionChangesOf } from '../testing/repository-database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { CategoryTranslation } from './category-translation';
import { CategoryTranslationRepository } from './category-translation.repository';

describe.each(databaseTargets())('the category translation repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let translations: CategoryTranslationRepository;
  let newWorkspace: () => Promise<ScopedWorkspace>;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    ({ db, newWorkspace } = opened);
    dispose = opened.close;
    translations = new CategoryTranslationRepository(db, { now: () => new Date('2026-03-01T10:00:00Z') });
  });
  afterAll(async () => {
    await dispose?.();
  });

  /** The workspace's category translation announcements, in order. */
  const announced = (workspace: ScopedWorkspace): Promise<DefinitionChanged[]> => definitionChangesOf(db, 'category_translation', workspace);
  const spanish = (name: string) => ({ sections: {}, categories: { transactional: { name, description: 'Sobre lo que hizo' } } }) as unknown as CategoryTranslation;

  it('saves, replaces and deletes a locale, announcing each with a version that only grows', async () => {
    const workspace = await newWorkspace();
    expect(await translations.locales(workspace)).toEqual([]);
    await expect(translations.get(workspace, 'es')).rejects.toThrow('translation not found for locale: es');

    expect(await translations.save(workspace, 'es', spanish('Transaccional'))).toEqual(spanish('Transaccional'));
    await translations.save(workspace, 'de', spanish('Transaktional'));
    await translations.save(workspace, 'es', spanish('Operaciones'));
    expect(await translations.locales(workspace)).toEqual(['de', 'es']);
    expect(await translations.get(workspace, 'es')).toEqual(spanish('Operaciones'));

    await translations.remove(workspace, 'es');
    await expect(translations.remove(workspace, 'es')).rejects.toThrow('translation not found');
    expect(await translations.locales(workspace)).toEqual(['de']);
    const changes = await announced(workspace);
    expect(changes.map((change) => [change.change, change.id])).toEqual([
      ['upserted', 'es'],
      ['upserted', 'de'],
      ['upserted', 'es'],
      ['deleted', 'es'],
    ]);
    const versions = changes.map((change) => change.version);
    expect([...versions].sort((a, b) => a - b)).toEqual(versions);
    expect(new Set(versions).size).toBe(versions.length);
  });

  it("keeps each workspace's translations its own", async () => {
    const workspace = await newWorkspace();
    const other = await newWorkspace();
    await translations.save(workspace, 'fr', spanish('Transactionnel'));
    expect(await translations.locales(other)).toEqual([]);
    await expect(translations.get(other, 'fr')).rejects.toThrow('not found');
    await expect(translations.remove(other, 'fr')).rejects.toThrow('not found');
    expect(await translations.get(workspace, 'fr')).toEqual(spanish('Transactionnel'));
  });
});

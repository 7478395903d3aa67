import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CategoryDocument } from '@herald/audience';
import { databaseTargets } from '@herald/testing';
import { openAudienceDatabase } from '../testing/repository-database';
import { SAMPLE_CATEGORIES } from '../testing/sample-categories';
import { CategoryDocumentRepository } from './category-document.repository';

describe.each(databaseTargets())('the category document repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let categories: CategoryDocumentRepository;

  beforeAll(async () => {
    const opened = await openAudienceDatabase(target);
    db = opened.db;
    dispose = opened.close;
    categories = new CategoryDocumentRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const sample = SAMPLE_CATEGORIES as unknown as CategoryDocument;
  /** A document with one category, `only`, in a section named `section`. */
  const single = (section: string): CategoryDocument =>
    ({ root_categories: [{ root_category: 'transactional', sections: [{ name: section, categories: [{ category: 'only', name: 'Only', default_preference: 'opt_in' }] }] }] }) as unknown as CategoryDocument;
  const texts = (name: string | null, description: string | null = null) => ({ name, description });
  const translation = (categoryName: string) => ({ sections: {}, categories: { 'status-updates': texts(categoryName) } });

  it('answers no categories before the first announcement, and 404 naming a category', async () => {
    const workspace = randomUUID();
    expect(await categories.categories(workspace)).toEqual(new Map());
    await expect(categories.category(workspace, 'status-updates')).rejects.toThrow("category 'status-updates' not found");
  });

  it("indexes the workspace's announced document by slug, also in the caller's transaction, never another workspace's", async () => {
    const workspace = randomUUID();
    await categories.saveCategories(workspace, 1, sample);
    await categories.saveCategories(randomUUID(), 1, single('Elsewhere'));
    const located = await categories.categories(workspace);
    expect([...located.keys()]).toEqual(['security-alerts', 'status-updates', 'newsletter']);
    expect(located.get('status-updates')).toMatchObject({ root_category: 'transactional', section: { name: 'Updates' }, definition: { category: 'status-updates', default_preference: 'opt_in' } });
    expect(await db.transaction((tx) => categories.category(workspace, 'newsletter', tx))).toMatchObject({ root_category: 'promotional', definition: { category: 'newsletter' } });
    await expect(categories.category(workspace, 'only')).rejects.toThrow("category 'only' not found");
  });

  it('keeps the newest version: an older or repeated announcement changes nothing, a newer one replaces the document', async () => {
    const workspace = randomUUID();
    await categories.saveCategories(workspace, 5, single('Five'));
    await categories.saveCategories(workspace, 4, single('Four'));
    await categories.saveCategories(workspace, 5, single('Five again'));
    expect((await categories.category(workspace, 'only')).section.name).toBe('Five');
    await categories.saveCategories(workspace, 6, single('Six'));
    expect((await categories.category(workspace, 'only')).section.name).toBe('Six');
  });

  it('removes the document on a deletion of its version or a newer one, never on an older one', async () => {
    const workspace = randomUUID();
    await categories.saveCategories(workspace, 3, single('Three'));
    await categories.removeCategories(workspace, 2);
    expect((await categories.categories(workspace)).size).toBe(1);
    await categories.removeCategories(workspace, 3);
    expect((await categories.categories(workspace)).size).toBe(0);
    // A redelivered older document after the deletion comes back: the deletion kept no version.
    await categories.saveCategories(workspace, 1, single('One'));
    expect((await categories.category(workspace, 'only')).section.name).toBe('One');
  });

  it('answers the texts of a locale, its language, then en, matching the locale whatever its case, untranslated without one', async () => {
    const workspace = randomUUID();
    const committed = { name: 'Status updates', description: 'When a status changes' };
    await categories.saveTranslation(workspace, 'fr-CA', 1, { sections: {}, categories: { 'status-updates': texts('Mises à jour (CA)') } });
    await categories.saveTranslation(workspace, 'FR', 1, { sections: { updates: texts('Nouvelles', 'Ce qui change') }, categories: { 'status-updates': texts('Statuts', 'Quand un statut change') } });
    await categories.saveTranslation(randomUUID(), 'de', 1, translation('Andere'));

    expect((await categories.texts(workspace, undefined)).category('status-updates', committed)).toEqual(committed);
    expect((await categories.texts(workspace, 'fr-ca')).category('status-updates', committed)).toEqual({ name: 'Mises à jour (CA)', description: 'Quand un statut change' });
    const french = await categories.texts(workspace, 'fr');
    expect(french.category('status-updates', committed)).toEqual({ name: 'Statuts', description: 'Quand un statut change' });
    expect(french.section({ name: 'Updates', description: null })).toEqual({ name: 'Nouvelles', description: 'Ce qui change' });
    expect((await categories.texts(workspace, 'de')).category('status-updates', committed)).toEqual(committed);
  });

  it("keeps a locale's newest translation, and removes it on a deletion of its version or a newer one", async () => {
    const workspace = randomUUID();
    const committed = { name: 'Status updates' };
    const nameIn = async (locale: string) => (await categories.texts(workspace, locale)).category('status-updates', committed).name;
    await categories.saveTranslation(workspace, 'es', 7, translation('Siete'));
    await categories.saveTranslation(workspace, 'ES', 6, translation('Seis'));
    await categories.saveTranslation(workspace, 'es', 7, translation('Siete otra vez'));
    expect(await nameIn('es')).toBe('Siete');
    await categories.saveTranslation(workspace, 'Es', 8, translation('Ocho'));
    expect(await nameIn('es')).toBe('Ocho');

    await categories.removeTranslation(workspace, 'es', 7);
    expect(await nameIn('es')).toBe('Ocho');
    await categories.removeTranslation(workspace, 'ES', 8);
    expect(await nameIn('es')).toBe('Status updates');
    const rows: Array<{ locale_key: string }> = await db.query(`SELECT locale_key FROM audience.category_translations WHERE workspace_id = $1`, [workspace]);
    expect(rows).toEqual([]);
  });
});

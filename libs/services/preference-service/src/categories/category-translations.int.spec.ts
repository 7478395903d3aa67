import { randomUUID } from 'node:crypto';
import { CategoryTranslationDocument, DEFINITION_CHANGED_TYPE, DefinitionChanged, TOPICS, envelopeOf } from '@herald/contracts';
import { runModeTargets } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { AudienceTestApp, startAudienceTestApp } from '../testing/audience-test-app';
import { SAMPLE_CATEGORIES } from '../testing/sample-categories';

describe.each(runModeTargets())('preference reads in a requested locale, from the category translations management announces ($name)', ({ database, bus }) => {
  let t: AudienceTestApp;
  let version = 0;

  /** Publishes a translation as management-api does when one is saved (or deleted, without a document), and waits until it is applied. */
  async function announceTranslation(locale: string, document: CategoryTranslationDocument | undefined): Promise<void> {
    version += 1;
    const change: DefinitionChanged = {
      kind: 'category_translation',
      change: document ? 'upserted' : 'deleted',
      workspace_id: t.workspace.id,
      workspace_slug: t.workspace.slug,
      id: locale,
      version,
      ...(document ? { document } : {}),
    };
    const value = JSON.stringify(envelopeOf(DEFINITION_CHANGED_TYPE, 1, randomUUID(), t.workspace.id, new Date(), change));
    await t.bus.publish(TOPICS.definitionChanged.name, [{ key: t.workspace.id, value }]);
    await expectEventually(async () => {
      const rows = await t.sql<{ version: string }>(`SELECT version FROM audience.category_translations WHERE workspace_id = $1 AND locale_key = $2`, [t.workspace.id, locale.toLowerCase()]);
      expect(rows.map((row) => Number(row.version))).toEqual(document ? [version] : []);
    });
  }

  const texts = (name: string | null, description: string | null = null) => ({ name, description });

  beforeAll(async () => {
    t = await startAudienceTestApp(database, bus);
    await t.announceCategories(t.workspace, SAMPLE_CATEGORIES);
    expect((await t.call('POST', 'v1/user/ana/', { name: 'Ana' })).status).toBe(201);
    expect((await t.call('POST', 'v1/object/team/ops/', { name: 'Ops' })).status).toBe(201);
    await announceTranslation('fr', {
      sections: { updates: texts('Mises à jour', 'Ce qui change') },
      categories: { 'status-updates': texts('Statuts', 'Quand un statut change'), newsletter: texts('Lettre', null) },
    });
    // Only the newsletter's name in fr-CA: the rest of fr-CA falls back to fr, then en.
    await announceTranslation('fr-CA', { sections: {}, categories: { newsletter: texts('Infolettre') } });
    await announceTranslation('en', { sections: { Security: texts('Safety') }, categories: { 'security-alerts': texts('Safety alerts', 'Account safety') } });
  });
  afterAll(() => t?.close());

  it('translates sections and categories locale-region -> language -> en -> as committed, on the full preference of a user and of an object', async () => {
    for (const path of ['v1/user/ana/preference/?locale=fr-CA', 'v1/object/team/ops/preference/?locale=fr-CA']) {
      const full = (await t.call('GET', path)).body as { sections: Array<{ name: string; description: string | null; subcategories: Array<{ category: string; name: string; description: string }> }> };
      expect(full.sections.map(({ name, description, subcategories }) => ({ name, description, subcategories: subcategories.map((c) => [c.category, c.name, c.description]) }))).toEqual([
        { name: 'Safety', description: null, subcategories: [['security-alerts', 'Safety alerts', 'Account safety']] },
        { name: 'Mises à jour', description: 'Ce qui change', subcategories: [['status-updates', 'Statuts', 'Quand un statut change']] },
        { name: 'Marketing', description: null, subcategories: [['newsletter', 'Infolettre', '']] },
      ]);
    }
  });

  it('translates one category and the category page, and matches locales whatever their case', async () => {
    expect((await t.call('GET', 'v1/user/ana/preference/category/status-updates/?locale=FR-ca')).body).toMatchObject({ name: 'Statuts', description: 'Quand un statut change' });
    const page = (await t.call('GET', 'v1/object/team/ops/preference/category/?locale=fr&limit=10')).body as { results: Array<{ category: string; name: string }> };
    expect(page.results.map((c) => [c.category, c.name])).toEqual([
      ['security-alerts', 'Safety alerts'],
      ['status-updates', 'Statuts'],
      ['newsletter', 'Lettre'],
    ]);
  });

  it('answers the committed texts without a locale, and for a locale with neither its own, its language nor en translations once en is deleted', async () => {
    const committed = [
      ['security-alerts', 'Security alerts'],
      ['status-updates', 'Status updates'],
      ['newsletter', 'Newsletter'],
    ];
    const names = async (query: string) =>
      ((await t.call('GET', `v1/user/ana/preference/category/${query}`)).body as { results: Array<{ category: string; name: string }> }).results.map((c) => [c.category, c.name]);
    expect(await names('')).toEqual(committed);
    expect(await names('?locale=de-AT')).toEqual([['security-alerts', 'Safety alerts'], ...committed.slice(1)]);
    await announceTranslation('en', undefined);
    expect(await names('?locale=de-AT')).toEqual(committed);
    expect((await t.call('GET', 'v1/user/ana/preference/?locale=de')).body).toMatchObject({ sections: [{ name: 'Security' }, { name: 'Updates', description: 'What changes' }, { name: 'Marketing' }] });
  });

  it('refuses a locale that is not a BCP 47 tag with a 400 naming `locale`', async () => {
    for (const path of ['v1/user/ana/preference/?locale=not_a%20locale', 'v1/user/ana/preference/category/?locale=x', 'v1/object/team/ops/preference/category/newsletter/?locale=fr--CA']) {
      const response = await t.call('GET', path);
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body)).toContain('locale');
    }
  });
});

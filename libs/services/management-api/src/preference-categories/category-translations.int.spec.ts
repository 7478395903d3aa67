import { DefinitionChanged } from '@herald/contracts';
import { databaseTargets, expectEventually } from '@herald/testing';
import { ManagementTestApp, startManagementTestApp } from '../testing/management-test-app';

const T = 'v1/staging/preference_category/translation';
const ES = {
  sections: { account: { name: 'Cuenta', description: null } },
  categories: { 'password-reset': { name: 'Restablecer contraseña', description: 'Cuando se restablece la contraseña' } },
};

describe.each(databaseTargets())('management API: preference-category translations ($kind)', (target) => {
  let t: ManagementTestApp;
  const call = (method: string, path: string, body?: unknown, token?: string) => t.call(method, path, body, token) as Promise<{ status: number; body: Record<string, unknown> }>;

  async function announced(locale: string): Promise<DefinitionChanged[]> {
    await expectEventually(async () => expect(await t.sql(`SELECT id FROM management.outbox`)).toEqual([]));
    return t.definitions.filter((d) => d.kind === 'category_translation' && d.id === locale);
  }

  beforeAll(async () => {
    t = await startManagementTestApp(target);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('stores a translation per locale, lists, replaces and deletes it', async () => {
    expect(await call('GET', `${T}/content/es/`)).toMatchObject({ status: 404, body: { detail: 'translation not found for locale: es' } });
    expect(await call('POST', `${T}/content/es/`, ES)).toEqual({ status: 200, body: ES });
    // A text left out is stored as null.
    expect(await call('POST', `${T}/content/es-AR/`, { categories: { 'password-reset': { name: 'Contraseña' } } })).toEqual({
      status: 200,
      body: { sections: {}, categories: { 'password-reset': { name: 'Contraseña', description: null } } },
    });
    expect(await call('GET', `${T}/locale/`)).toEqual({ status: 200, body: { results: [{ locale: 'es' }, { locale: 'es-AR' }] } });

    const replaced = { sections: {}, categories: { account: { name: 'Cuenta', description: null } } };
    expect((await call('POST', `${T}/content/es/`, replaced)).body).toEqual(replaced);
    expect(await call('GET', `${T}/content/es/`)).toEqual({ status: 200, body: replaced });

    expect((await call('DELETE', `${T}/content/es/`)).status).toBe(204);
    expect((await call('GET', `${T}/content/es/`)).status).toBe(404);
    expect((await call('DELETE', `${T}/content/es/`)).status).toBe(404);
    expect((await call('GET', `${T}/locale/`)).body).toEqual({ results: [{ locale: 'es-AR' }] });
  });

  it('announces each save and delete to preference-service, in increasing versions', async () => {
    const pt = { sections: {}, categories: { newsletter: { name: 'Boletim', description: null } } };
    expect((await call('POST', `${T}/content/pt-BR/`, pt)).status).toBe(200);
    expect((await call('DELETE', `${T}/content/pt-BR/`)).status).toBe(204);
    expect((await call('POST', `${T}/content/pt-BR/`, ES)).status).toBe(200);
    const changes = await announced('pt-BR');
    expect(changes.map(({ change, document }) => ({ change, document }))).toEqual([
      { change: 'upserted', document: pt },
      { change: 'deleted', document: undefined },
      { change: 'upserted', document: ES },
    ]);
    const versions = changes.map((change) => change.version);
    expect([...versions].sort((a, b) => a - b)).toEqual(versions);
    expect(new Set(versions).size).toBe(3);
  });

  it('refuses a bad locale or document, by field path', async () => {
    const refused = await call('POST', `${T}/content/fr/`, {
      sections: { a: { name: 3, title: 'x' } },
      categories: { b: 'Nom', c: { description: 'x'.repeat(1_001) } },
      extra: true,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe(
      'extra: is not a field of a category translation (sections, categories); sections.a.title: is not a field of a translated text (name, description); sections.a.name: must be a string or null; categories.b: must be an object {name, description}; categories.c.description: must have at most 1000 characters',
    );
    const tooMany = Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`s${i}`, { name: 'x' }]));
    expect((await call('POST', `${T}/content/fr/`, { sections: tooMany })).body.detail).toBe('sections: must have at most 1000 entries');
    expect((await call('POST', `${T}/content/fr/`, [])).status).toBe(400);
    const badLocale = await call('GET', `${T}/content/not_a_locale/`);
    expect(badLocale.status).toBe(400);
    expect(badLocale.body.detail).toContain("locale: invalid/unsupported locale: 'not_a_locale'");
    expect((await call('GET', `${T}/content/fr/`)).status).toBe(404);
  });

  it("shows another account none of this account's translations", async () => {
    expect((await call('POST', `${T}/content/de/`, { sections: { account: { name: 'Konto' } } })).status).toBe(200);
    expect((await call('GET', `${T}/locale/`, undefined, t.otherToken)).body).toEqual({ results: [] });
    expect((await call('GET', `${T}/content/de/`, undefined, t.otherToken)).status).toBe(404);
    expect((await call('DELETE', `${T}/content/de/`, undefined, t.otherToken)).status).toBe(404);
    expect((await call('GET', `${T}/content/de/`)).body).toEqual({ sections: { account: { name: 'Konto', description: null } }, categories: {} });
  });
});

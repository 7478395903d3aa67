import { DefinitionChanged } from '@herald/contracts';
import { databaseTargets, expectEventually } from '@herald/testing';
import { ManagementTestApp, startManagementTestApp } from '../testing/management-test-app';

const T = 'v1/staging/translation';

describe.each(databaseTargets())('management API: translations ($kind)', (target) => {
  let t: ManagementTestApp;
  const call = (method: string, path: string, body?: unknown, token?: string) => t.call(method, path, body, token) as Promise<{ status: number; body: Record<string, unknown> }>;

  async function announced(): Promise<DefinitionChanged[]> {
    await expectEventually(async () => expect(await t.sql(`SELECT id FROM management.outbox`)).toEqual([]));
    return t.definitions.filter((d) => d.kind === 'translation');
  }

  beforeAll(async () => {
    t = await startManagementTestApp(target);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps locale files as drafts, commits them as a version, announces it, and rolls back', async () => {
    const fr = await call('POST', `${T}/content/fr.json/`, { locale: 'fr.json', content: { greeting: 'Bonjour' } });
    expect(fr).toMatchObject({ status: 201, body: { filename: 'fr.json', locale: 'fr', locale_name: 'French', namespace: null, action: 'added', content: { greeting: 'Bonjour' } } });
    await call('POST', `${T}/content/task.fr-CA.json/`, { content: { created: 'Tâche créée' } });
    expect((await call('GET', `${T}/?mode=live`)).body).toMatchObject({ meta: { count: 0 } });
    expect((await call('GET', `${T}/`)).body).toMatchObject({ meta: { count: 2 }, results: [{ filename: 'fr.json', action: 'added' }, { filename: 'task.fr-CA.json', locale: 'fr-CA', namespace: 'task' }] });

    const committed = await call('PATCH', `${T}/commit/?commit_message=first`);
    expect(committed).toMatchObject({ status: 202, body: { meta: { count: 2 }, results: [{ filename: 'fr.json', action: 'added' }, { filename: 'task.fr-CA.json', action: 'added' }] } });
    expect((await call('PATCH', `${T}/commit/`)).status).toBe(409);
    expect(await announced()).toEqual([
      expect.objectContaining({
        change: 'committed',
        id: 'translations',
        version: 1,
        document: {
          version_no: 1,
          files: [
            { filename: 'fr.json', locale: 'fr', namespace: null, content: { greeting: 'Bonjour' } },
            { filename: 'task.fr-CA.json', locale: 'fr-CA', namespace: 'task', content: { created: 'Tâche créée' } },
          ],
        },
      }),
    ]);

    // Version 2 changes fr.json and deletes the namespaced file.
    await call('POST', `${T}/content/fr.json/`, { content: { greeting: 'Salut' } });
    expect((await call('DELETE', `${T}/content/task.fr-CA.json/`)).status).toBe(204);
    expect((await call('GET', `${T}/`)).body).toMatchObject({ results: [{ filename: 'fr.json', action: 'updated' }, { filename: 'task.fr-CA.json', action: 'deleted' }] });
    expect((await call('GET', `${T}/content/fr.json/?mode=live`)).body).toMatchObject({ content: { greeting: 'Bonjour' } });
    expect((await call('PATCH', `${T}/commit/`)).body).toMatchObject({ meta: { count: 1 }, results: [{ filename: 'fr.json', action: 'updated' }] });
    expect((await call('GET', `${T}/content/task.fr-CA.json/?mode=live`)).status).toBe(404);
    expect((await call('GET', `${T}/version/1/`)).body).toMatchObject({ meta: { count: 2 } });

    const rolledBack = await call('POST', `${T}/version/1/rollback/`);
    expect(rolledBack).toMatchObject({ status: 200, body: { meta: { count: 2 }, results: [{ filename: 'fr.json', action: 'updated' }, { filename: 'task.fr-CA.json', action: 'added' }] } });
    expect((await call('GET', `${T}/content/fr.json/?mode=live`)).body).toMatchObject({ content: { greeting: 'Bonjour' } });
    expect((await announced()).map((d) => d.version)).toEqual([1, 2, 3]);
    expect((await call('POST', `${T}/version/9/rollback/`)).status).toBe(404);
  });

  it('refuses a bad file name or content, by field path', async () => {
    const refused = await call('POST', `${T}/content/de.json/`, { locale: 'fr.json', content: { ok: 'ja', count: 3 }, extra: true });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe('extra: is not a field of a translation (locale, content); content.count: must be a string');
    // That `locale` is the path's file name is checked once the body has its shape.
    const otherFile = await call('POST', `${T}/content/de.json/`, { locale: 'fr.json', content: { greeting: 'Hallo' } });
    expect(otherFile).toMatchObject({ status: 400, body: { detail: 'locale: must be the file name of the path, "de.json"' } });
    const badName = await call('POST', `${T}/content/french.txt/`, { content: {} });
    expect(badName.status).toBe(400);
    expect(badName.body.detail).toContain('locale_file: must be <locale>.json or <namespace>.<locale>.json');
    expect((await call('POST', `${T}/content/de.json/`, { content: [] })).status).toBe(400);
    expect((await call('GET', `${T}/version/x/`)).status).toBe(400);
  });

  it("shows another account none of this account's translations", async () => {
    expect((await call('GET', `${T}/`, undefined, t.otherToken)).body).toMatchObject({ meta: { count: 0 } });
    expect((await call('GET', `${T}/content/fr.json/`, undefined, t.otherToken)).status).toBe(404);
    // Its own workspace of that slug has no draft and no version of ours.
    expect((await call('PATCH', `${T}/commit/`, undefined, t.otherToken)).status).toBe(409);
    expect((await call('POST', `${T}/version/1/rollback/`, undefined, t.otherToken)).status).toBe(404);
  });
});

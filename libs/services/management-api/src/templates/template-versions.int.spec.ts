import { databaseTargets } from '@herald/testing';
import { INVALID_SERVICE_TOKEN, ManagementTestApp, startManagementTestApp } from '../testing/management-test-app';

type Json = Record<string, unknown>;
interface Response {
  status: number;
  body: Json;
}

const T = 'v2/staging/template';
const SLUG = 'receipt';
const variantPath = (channel: string, id: string): string => `${T}/${SLUG}/channel/${channel}/variant/${id}/`;
const FIRST_EMAIL = { subject: 'Receipt {{number}}', html: '<p>Thanks</p>' };
const SECOND_EMAIL = { subject: 'Your receipt {{number}}', html: '<p>Thanks again</p>' };

/** A template's history: each commit recorded as it went live, readable whole, and restorable as the draft. */
describe.each(databaseTargets())('management API: template versions ($kind)', (target) => {
  let t: ManagementTestApp;

  /** Every response is checked against the OpenAPI description by the fixture. */
  const call = async (method: string, path: string, body?: unknown, bearer = t.token): Promise<Response> => (await t.call(method, path, body, bearer)) as Response;
  const ok = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const response = await call(method, path, body);
    expect({ path, status: response.status, body: response.body }).toMatchObject({ status: 200 });
    return response.body;
  };
  const history = async (): Promise<Array<Json & { version_no: number }>> => (await ok('GET', `${T}/${SLUG}/versions/`)).results as Array<Json & { version_no: number }>;

  beforeAll(async () => {
    t = await startManagementTestApp(target);
    await ok('POST', `${T}/${SLUG}/`, { name: 'Receipt', enabled_channels: ['email'] });
    await ok('POST', variantPath('email', 'default'), { locale: 'en', content: FIRST_EMAIL });
    await ok('PATCH', `${T}/${SLUG}/commit/?commit_message=first`);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('records each commit as a version, newest first, with its message, metadata and variants; an identical draft commits no version', async () => {
    await ok('POST', `${T}/${SLUG}/`, { name: 'Receipt (v2)', enabled_channels: ['email', 'sms'] });
    await ok('POST', variantPath('email', 'default'), { locale: 'en', content: SECOND_EMAIL });
    await ok('POST', variantPath('sms', 'default'), { locale: 'en', content: { text: 'Receipt {{number}}' }, needs_vendor_approval: false });
    const committed = await ok('PATCH', `${T}/${SLUG}/commit/?commit_message=second`);
    await ok('PATCH', `${T}/${SLUG}/commit/?commit_message=nothing changed`);

    expect(await history()).toEqual([
      expect.objectContaining({ version_no: 2, commit_message: 'second', is_live: true, name: 'Receipt (v2)', enabled_channels: ['email', 'sms'], variants_count: 2, hash: committed.hash }),
      expect.objectContaining({ version_no: 1, commit_message: 'first', is_live: false, name: 'Receipt', enabled_channels: ['email'], variants_count: 1 }),
    ]);
    const first = await ok('GET', `${T}/${SLUG}/versions/1/`);
    expect(first).toMatchObject({ version_no: 1, description: null, tags: [], strict: false });
    expect(first.variants).toEqual([
      { channel: 'email', id: 'default', tenant_id: null, locale: 'en', conditions: [], content: FIRST_EMAIL, seq_no: 1, needs_vendor_approval: false },
    ]);
    expect(((await ok('GET', `${T}/${SLUG}/versions/2/`)).variants as Json[]).map((variant) => [variant.channel, variant.content])).toEqual([
      ['email', SECOND_EMAIL],
      ['sms', { text: 'Receipt {{number}}' }],
    ]);
  });

  it('restores a version as the draft (the live version unchanged until committed), and its commit is the next version with the same content', async () => {
    const restored = await ok('POST', `${T}/${SLUG}/versions/1/restore/`);
    expect(restored).toMatchObject({ status: 'active', version_no: 2, name: 'Receipt', enabled_channels: ['email'] });
    // The draft is version 1's; the live version is still 2.
    expect((await ok('GET', `${T}/${SLUG}/variant/`)).results).toEqual([expect.objectContaining({ channel: 'email', id: 'default', has_error: false })]);
    expect((await ok('GET', variantPath('email', 'default'))).content).toEqual(FIRST_EMAIL);
    expect((await ok('GET', `${T}/${SLUG}/variant/?mode=live`)).results).toHaveLength(2);

    const committed = await ok('PATCH', `${T}/${SLUG}/commit/?commit_message=back to 1`);
    expect(committed).toMatchObject({ version_no: 3, name: 'Receipt', enabled_channels: ['email'] });
    const versions = await history();
    expect(versions.map((version) => [version.version_no, version.commit_message, version.is_live])).toEqual([
      [3, 'back to 1', true],
      [2, 'second', false],
      [1, 'first', false],
    ]);
    expect(versions[0].hash).toBe(versions[2].hash);
    expect((await ok('GET', `${T}/${SLUG}/variant/?mode=live`)).results).toEqual([expect.objectContaining({ channel: 'email', id: 'default' })]);
  });

  it('answers 400 for a version that is not a number, 404 for one that does not exist or a template of another workspace, 401 without a valid token', async () => {
    expect(await call('GET', `${T}/${SLUG}/versions/first/`)).toMatchObject({ status: 400, body: { detail: expect.stringContaining('version') } });
    expect(await call('GET', `${T}/${SLUG}/versions/99/`)).toMatchObject({ status: 404 });
    expect(await call('POST', `${T}/${SLUG}/versions/99/restore/`)).toMatchObject({ status: 404 });
    expect(await call('GET', `${T}/missing/versions/`)).toMatchObject({ status: 404 });
    expect((await call('GET', `${T}/${SLUG}/versions/`, undefined, t.otherToken)).status).toBe(404);
    expect(await call('GET', `${T}/${SLUG}/versions/`, undefined, 'wrong')).toEqual(INVALID_SERVICE_TOKEN);
    expect((await history()).map((version) => version.version_no)).toEqual([3, 2, 1]);
  });
});

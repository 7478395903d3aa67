import { EngagementLinks, runModeTargets } from '@herald/runtime';
import { AudienceTestApp, startAudienceTestApp } from '../testing/audience-test-app';
import { SAMPLE_CATEGORIES } from '../testing/sample-categories';

/** The List-Unsubscribe link's routes as a mail client (RFC 8058) and the hosted page's form post them: form bodies, text and HTML answers. */
describe.each(runModeTargets())('unsubscribe links ($name)', ({ database, bus }) => {
  let t: AudienceTestApp;
  let links: EngagementLinks;
  const tokenFor = (category: string): string => links.preferenceToken({ workspaceId: t.workspace.id, workspaceSlug: t.workspace.slug, distinctId: 'reader', category }, new Date());
  const post = async (path: string, contentType: string, body: string): Promise<{ status: number; text: string }> => {
    const response = await fetch(`${t.app.url}v1/unsubscribe/${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
    return { status: response.status, text: await response.text() };
  };
  const preferenceOf = async (category: string): Promise<unknown> => ((await t.call('GET', `v1/user/reader/preference/category/${category}/`)).body as { preference: unknown }).preference;

  beforeAll(async () => {
    t = await startAudienceTestApp(database, bus);
    links = new EngagementLinks(t.secretsKey, 'https://notify.example.com');
    await t.announceCategories(t.workspace, SAMPLE_CATEGORIES);
    expect((await t.call('POST', 'v1/user/reader/', { name: 'Reader' })).status).toBe(201);
  });
  afterAll(() => t?.close());

  it("opts out of the link's category on RFC 8058's one-click body, urlencoded or multipart", async () => {
    expect(await post(tokenFor('status-updates'), 'application/x-www-form-urlencoded', 'List-Unsubscribe=One-Click')).toEqual({ status: 200, text: 'Unsubscribed from status-updates.' });
    expect(await preferenceOf('status-updates')).toBe('opt_out');
    await t.call('PATCH', 'v1/user/reader/preference/category/status-updates/', { preference: 'opt_in' });
    const multipart = '--b0undary\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--b0undary--\r\n';
    expect(await post(tokenFor('status-updates'), 'multipart/form-data; boundary=b0undary', multipart)).toEqual({ status: 200, text: 'Unsubscribed from status-updates.' });
    expect(await preferenceOf('status-updates')).toBe('opt_out');
  });

  it('refuses another body, a category that cannot be unsubscribed and a forged link, in text', async () => {
    expect(await post(tokenFor('newsletter'), 'application/x-www-form-urlencoded', 'List-Unsubscribe=Yes')).toEqual({ status: 400, text: 'A one-click unsubscribe posts List-Unsubscribe=One-Click (RFC 8058).' });
    expect((await post(tokenFor('security-alerts'), 'application/x-www-form-urlencoded', 'List-Unsubscribe=One-Click')).status).toBe(400);
    expect(await post('forged', 'application/x-www-form-urlencoded', 'List-Unsubscribe=One-Click')).toEqual({ status: 404, text: 'This unsubscribe link is not valid.' });
  });

  it("saves the preference page's form: each category shown is subscribed when checked", async () => {
    const saved = await post(`${tokenFor('newsletter')}/preferences`, 'application/x-www-form-urlencoded', 'shown=newsletter&shown=status-updates&subscribed=newsletter');
    expect(saved.status).toBe(200);
    expect(saved.text).toContain('Your preferences are saved.');
    expect([await preferenceOf('newsletter'), await preferenceOf('status-updates')]).toEqual(['opt_in', 'opt_out']);
    const one = await post(`${tokenFor('newsletter')}/preferences`, 'application/x-www-form-urlencoded', 'shown=status-updates&subscribed=status-updates');
    expect(one.status).toBe(200);
    expect(await preferenceOf('status-updates')).toBe('opt_in');
    expect((await post(`${tokenFor('newsletter')}/preferences`, 'application/x-www-form-urlencoded', 'shown=security-alerts')).status).toBe(400);
  });
});

import { runModeTargets } from '@herald/runtime';
import { AudienceTestApp, startAudienceTestApp } from '../testing/audience-test-app';

type Json = Record<string, unknown>;

describe.each(runModeTargets())('/v1/brand/, the older name of tenants ($name)', ({ database, bus }) => {
  let t: AudienceTestApp;

  beforeAll(async () => {
    t = await startAudienceTestApp(database, bus);
  });
  afterAll(() => t?.close());

  it('upserts and reads a brand as the tenant of the same id, brand_name being tenant_name', async () => {
    const created = await t.call('POST', 'v1/brand/initech/', { brand_id: 'ignored', brand_name: 'Initech', blocked_channels: ['sms'], logo: 'https://example.com/l.png' });
    expect(created).toMatchObject({ status: 201, body: { brand_id: 'initech', brand_name: 'Initech', blocked_channels: ['sms'], logo: 'https://example.com/l.png' } });
    expect(created.body as Json).not.toHaveProperty('tenant_id');
    expect(await t.call('GET', 'v1/tenant/initech/')).toMatchObject({ status: 200, body: { tenant_id: 'initech', tenant_name: 'Initech' } });
    await t.call('POST', 'v1/tenant/initech/', { tenant_name: 'Initech Corp' });
    expect(await t.signedCall('GET', 'v1/brand/initech/', undefined)).toMatchObject({ status: 200, body: { brand_id: 'initech', brand_name: 'Initech Corp' } });
  });

  it('lists brands offset-paged, and answers 404 and 400 as tenants do', async () => {
    await t.call('POST', 'v1/brand/hooli/', { brand_name: 'Hooli' });
    const page = await t.call('GET', 'v1/brand/?limit=1&offset=0');
    expect(page).toMatchObject({ status: 200, body: { meta: { limit: 1, offset: 0 }, results: [{ brand_id: expect.any(String), brand_name: expect.any(String) }] } });
    expect(await t.call('GET', 'v1/brand/nobody/')).toMatchObject({ status: 404 });
    const bad = await t.call('POST', 'v1/brand/bad/', { brand_name: 5, blocked_channels: ['fax'] });
    expect(bad.status).toBe(400);
    expect((bad.body as Json).detail).toContain('brand_name');
    expect((await t.call('GET', 'v1/brand/?limit=0')).body).toMatchObject({ detail: expect.stringContaining('limit') });
    expect((await t.call('DELETE', 'v1/brand/hooli/')).status).toBe(204);
    expect((await t.call('GET', 'v1/tenant/hooli/')).status).toBe(404);
  });
});

import { TENANT_BODIES } from './request-bodies';

const CHANNELS = 'must be one of email, sms, whatsapp, androidpush, inbox, iospush, slack, webpush, ms_teams';

describe('tenant and brand bodies', () => {
  it('takes a tenant with any other keys, and blocked channels as a list, or null to keep them', () => {
    expect(TENANT_BODIES.upsert.parse({ tenant_name: 'Acme', blocked_channels: ['sms'], logo: 'l.png', properties: { a: 1 } })).toMatchObject({ ok: true });
    expect(TENANT_BODIES.upsert.parse({ blocked_channels: null })).toMatchObject({ ok: true });
  });

  it('names a tenant name that is not a string and each unknown channel, as the tenant store did', () => {
    expect(TENANT_BODIES.upsert.parse({ tenant_name: null, blocked_channels: ['fax', 3] })).toEqual({
      ok: false,
      errors: [
        { path: 'tenant_name', message: 'must be a string' },
        { path: 'blocked_channels[0]', message: CHANNELS },
        { path: 'blocked_channels[1]', message: CHANNELS },
      ],
    });
    expect(TENANT_BODIES.upsert.parse({ blocked_channels: 'sms' })).toEqual({ ok: false, errors: [{ path: 'blocked_channels', message: 'must be an array of channels or null' }] });
    expect(TENANT_BODIES.upsert.parse([])).toEqual({ ok: false, errors: [{ path: '', message: 'must be a JSON object' }] });
    expect(TENANT_BODIES.brandUpsert.parse({ brand_name: 5, tenant_name: 6, brand_id: 7 })).toEqual({
      ok: false,
      errors: [
        { path: 'brand_name', message: 'must be a string' },
        { path: 'tenant_name', message: 'must be a string' },
      ],
    });
  });

  it("takes a tenant's category default with absent fields kept, and names each bad one", () => {
    expect(TENANT_BODIES.categoryDefault.parse({ preference: 'cant_unsubscribe', mandatory_channels: ['email'], opt_in_channels: null })).toMatchObject({ ok: true });
    expect(TENANT_BODIES.categoryDefault.parse({ preference: 1, visible_to_subscriber: 'yes', mandatory_channels: {}, opt_in_channels: ['fax'] })).toEqual({
      ok: false,
      errors: [
        { path: 'preference', message: 'must be one of opt_in, opt_out, cant_unsubscribe' },
        { path: 'visible_to_subscriber', message: 'must be a boolean' },
        { path: 'mandatory_channels', message: 'must be an array of channels or null' },
        { path: 'opt_in_channels[0]', message: CHANNELS },
      ],
    });
    expect(TENANT_BODIES.categoryDefault.parse(undefined)).toEqual({ ok: false, errors: [{ path: '', message: 'a JSON body is required' }] });
  });
});

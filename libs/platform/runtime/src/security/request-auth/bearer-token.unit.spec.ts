import { authorizationKind, parseBearerToken, secretsEqual } from './bearer-token';

describe('parseBearerToken', () => {
  it('reads the token of "Bearer <api_key>"', () => {
    expect(parseBearerToken('Bearer SS.WSS.abc-123_x.y~z+/==')).toEqual({ ok: true, token: 'SS.WSS.abc-123_x.y~z+/==' });
  });

  it('takes the scheme case-insensitively and tolerates extra spaces around the token', () => {
    expect(parseBearerToken('bearer key1')).toEqual({ ok: true, token: 'key1' });
    expect(parseBearerToken('BEARER   key1  ')).toEqual({ ok: true, token: 'key1' });
    expect(parseBearerToken('  Bearer\tkey1')).toEqual({ ok: true, token: 'key1' });
  });

  it('says why a header is not a usable Bearer token', () => {
    expect(parseBearerToken(undefined)).toMatchObject({ ok: false, reason: 'missing_authorization' });
    expect(parseBearerToken('')).toMatchObject({ ok: false, reason: 'missing_authorization' });
    expect(parseBearerToken('Basic dXNlcjpwYXNz')).toMatchObject({ ok: false, reason: 'not_bearer' });
    expect(parseBearerToken('Bearerkey1')).toMatchObject({ ok: false, reason: 'not_bearer' });
    expect(parseBearerToken('wk:c2lnbmF0dXJl')).toMatchObject({ ok: false, reason: 'not_bearer' });
    expect(parseBearerToken('Bearer')).toMatchObject({ ok: false, reason: 'malformed_bearer', detail: 'the Bearer token is empty' });
    expect(parseBearerToken('Bearer   ')).toMatchObject({ ok: false, reason: 'malformed_bearer' });
    expect(parseBearerToken('Bearer two tokens')).toMatchObject({ ok: false, reason: 'malformed_bearer' });
    expect(parseBearerToken('Bearer clé')).toMatchObject({ ok: false, reason: 'malformed_bearer' });
  });
});

describe('authorizationKind', () => {
  it('routes Bearer keys and SDK signatures to their checks', () => {
    expect(authorizationKind(undefined)).toBe('missing');
    expect(authorizationKind('  ')).toBe('missing');
    expect(authorizationKind('Bearer k')).toBe('bearer');
    expect(authorizationKind('bearer')).toBe('bearer');
    expect(authorizationKind('wk_live_1:Y6JjI26mdEAWrEsviKtP2WyL/Pa9lgWUmG8GbIOdR6Y=')).toBe('sdk_signature');
    expect(authorizationKind('ServiceToken abc')).toBe('unsupported');
    expect(authorizationKind('Basic dXNlcjpwYXNz')).toBe('unsupported');
    expect(authorizationKind('just-a-key')).toBe('unsupported');
  });
});

describe('secretsEqual', () => {
  it('compares secrets of any length', () => {
    expect(secretsEqual('key-1', 'key-1')).toBe(true);
    expect(secretsEqual('key-1', 'key-2')).toBe(false);
    expect(secretsEqual('key-1', 'key-1-longer')).toBe(false);
    expect(secretsEqual('', '')).toBe(true);
  });
});

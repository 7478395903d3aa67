import { KeyObject, createHmac, generateKeyPairSync, sign, verify } from 'node:crypto';
import { MAX_ID_LENGTH } from '@herald/contracts';
import { MAX_USER_TOKEN_LENGTH, verifyUserToken } from './user-token';

const NOW = 1_800_000_000;
const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

function es256(claims: Record<string, unknown>, privateKey: KeyObject, header: Record<string, unknown> = { alg: 'ES256', typ: 'JWT' }): string {
  const input = `${part(header)}.${part(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

describe('verifyUserToken', () => {
  const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rolled = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keys = [signing.publicKey, rolled.publicKey];
  const claims = { distinct_id: 'alice', tenant_id: 'acme', iat: NOW - 10, exp: NOW + 300 };

  it('accepts a token signed with any of the workspace signing keys and returns its claims', () => {
    expect(verifyUserToken(es256(claims, signing.privateKey), keys, NOW)).toEqual({ ok: true, claims });
    expect(verifyUserToken(es256(claims, rolled.privateKey), keys, NOW)).toMatchObject({ ok: true });
  });

  it("takes SuprSend's subscriber entity_id as the distinct_id", () => {
    const token = es256({ entity_type: 'subscriber', entity_id: 'bob', iat: NOW, exp: NOW + 60 }, signing.privateKey);
    expect(verifyUserToken(token, keys, NOW)).toEqual({ ok: true, claims: { distinct_id: 'bob', iat: NOW, exp: NOW + 60 } });
  });

  it.each([
    ['another key signed it', () => es256(claims, stranger.privateKey), 'bad_signature'],
    ['the claims were changed after signing', () => {
      const [header, , signature] = es256(claims, signing.privateKey).split('.');
      return `${header}.${part({ ...claims, distinct_id: 'mallory' })}.${signature}`;
    }, 'bad_signature'],
    ['it expired', () => es256({ ...claims, exp: NOW }, signing.privateKey), 'token_expired'],
    ['it was issued in the future', () => es256({ ...claims, iat: NOW + 3600, exp: NOW + 7200 }, signing.privateKey), 'token_not_yet_valid'],
    ['it has no exp', () => es256({ distinct_id: 'alice', iat: NOW }, signing.privateKey), 'malformed_token'],
    ['it names no user', () => es256({ iat: NOW, exp: NOW + 60 }, signing.privateKey), 'malformed_token'],
    ['it claims alg none', () => `${part({ alg: 'none' })}.${part(claims)}.AAAA`, 'wrong_algorithm'],
    ['it is HMAC-signed with the public key as secret', () => {
      const input = `${part({ alg: 'HS256' })}.${part(claims)}`;
      const secret = signing.publicKey.export({ type: 'spki', format: 'pem' });
      return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
    }, 'wrong_algorithm'],
    ['it is not a JWT', () => 'not-a-token', 'malformed_token'],
    ['it is oversized', () => `${'a'.repeat(MAX_USER_TOKEN_LENGTH)}.b.c`, 'token_too_large'],
  ])('refuses a token when %s', (_case, token, reason) => {
    expect(verifyUserToken(token(), keys, NOW)).toMatchObject({ ok: false, reason });
  });

  it("accepts a signature in either S form, as OpenSSL-based signers (Node's crypto, jsonwebtoken) make both", () => {
    const n = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
    const [header, payload, encoded] = es256(claims, signing.privateKey).split('.');
    const signature = Buffer.from(encoded, 'base64url');
    const twinS = n - BigInt(`0x${signature.subarray(32).toString('hex')}`);
    const twin = Buffer.concat([signature.subarray(0, 32), Buffer.from(twinS.toString(16).padStart(64, '0'), 'hex')]);
    expect(verify('sha256', Buffer.from(`${header}.${payload}`), { key: signing.publicKey, dsaEncoding: 'ieee-p1363' }, twin)).toBe(true);
    expect(verifyUserToken(`${header}.${payload}.${encoded}`, keys, NOW)).toEqual({ ok: true, claims });
    expect(verifyUserToken(`${header}.${payload}.${twin.toString('base64url')}`, keys, NOW)).toEqual({ ok: true, claims });
  });

  it('refuses a token living longer than the maximum lifetime, as exp - iat or as exp from now', () => {
    const day = 86_400;
    expect(verifyUserToken(es256({ ...claims, iat: NOW, exp: NOW + 10 * 365 * day }, signing.privateKey), keys, NOW)).toMatchObject({
      ok: false,
      reason: 'lifetime_too_long',
    });
    // iat backdated to look short-lived from far in the future is caught by exp from now.
    expect(verifyUserToken(es256({ ...claims, iat: NOW + 9 * 365 * day, exp: NOW + 10 * 365 * day }, signing.privateKey), keys, NOW)).toMatchObject({
      ok: false,
    });
    expect(verifyUserToken(es256({ ...claims, iat: NOW - 10, exp: NOW + 30 * day - 10 }, signing.privateKey), keys, NOW)).toMatchObject({ ok: true });
    expect(verifyUserToken(es256({ ...claims, iat: NOW, exp: NOW + 7200 }, signing.privateKey), keys, NOW, 3600)).toMatchObject({
      ok: false,
      reason: 'lifetime_too_long',
    });
    expect(verifyUserToken(es256({ ...claims, iat: NOW, exp: NOW + 3600 }, signing.privateKey), keys, NOW, 3600)).toMatchObject({ ok: true });
  });

  it(`takes a distinct_id of up to MAX_ID_LENGTH (${MAX_ID_LENGTH}) characters, the limit every route applies to ids, and refuses a longer one`, () => {
    const longest = 'a'.repeat(MAX_ID_LENGTH);
    expect(verifyUserToken(es256({ ...claims, distinct_id: longest }, signing.privateKey), keys, NOW)).toMatchObject({ ok: true, claims: { distinct_id: longest } });
    expect(verifyUserToken(es256({ ...claims, distinct_id: `${longest}a` }, signing.privateKey), keys, NOW)).toEqual({
      ok: false,
      reason: 'malformed_token',
      detail: `user token distinct_id must hold at most ${MAX_ID_LENGTH} characters`,
    });
    const subscriber = { entity_type: 'subscriber', entity_id: `${longest}a`, iat: NOW, exp: NOW + 60 };
    expect(verifyUserToken(es256(subscriber, signing.privateKey), keys, NOW)).toMatchObject({ ok: false, reason: 'malformed_token' });
  });

  it('refuses every token while the workspace has no signing key', () => {
    expect(verifyUserToken(es256(claims, signing.privateKey), [], NOW)).toMatchObject({ ok: false, reason: 'no_signing_key' });
  });
});

import { KeyObject, createPrivateKey, sign } from 'node:crypto';

/** What a customer's backend does: an ES256 JWT for one user, signed with the workspace signing key's private PEM. */
export function mintUserToken(privateKey: string | KeyObject, claims: Record<string, unknown>): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'ES256', typ: 'JWT' })}.${part(claims)}`;
  const key = typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey;
  return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

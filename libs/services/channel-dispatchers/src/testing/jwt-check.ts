import { KeyObject, verify } from 'node:crypto';

export interface VerifiedJwt {
  readonly header: Record<string, unknown>;
  readonly claims: Record<string, unknown>;
}

/** Checks a compact JWS as a vendor would: the algorithm it expects and the signature with the public key. Undefined when either is wrong. */
export function verifiedJwt(jwt: string, algorithm: 'RS256' | 'ES256', publicKey: KeyObject): VerifiedJwt | undefined {
  const [header, claims, signature] = jwt.split('.');
  if (!header || !claims || !signature) return undefined;
  const decoded = { header: decode(header), claims: decode(claims) };
  if (decoded.header.alg !== algorithm) return undefined;
  const key = algorithm === 'ES256' ? { key: publicKey, dsaEncoding: 'ieee-p1363' as const } : publicKey;
  return verify('sha256', Buffer.from(`${header}.${claims}`), key, Buffer.from(signature, 'base64url')) ? decoded : undefined;
}

function decode(part: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

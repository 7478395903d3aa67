import { KeyObject, createPrivateKey, sign } from 'node:crypto';
import { VendorConfigError } from '../vendor.port';

export type JwtAlgorithm = 'RS256' | 'ES256';

/**
 * A compact JWS. ES256 signatures are the raw r||s pair JOSE requires (node's default
 * is DER), RS256 is PKCS#1 v1.5 with SHA-256.
 */
export function signJwt(algorithm: JwtAlgorithm, header: Readonly<Record<string, unknown>>, claims: Readonly<Record<string, unknown>>, key: KeyObject): string {
  const signingInput = `${base64url({ alg: algorithm, typ: 'JWT', ...header })}.${base64url(claims)}`;
  const signature = sign('sha256', Buffer.from(signingInput), algorithm === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key);
  return `${signingInput}.${signature.toString('base64url')}`;
}

/** A PEM private key of the expected type; the error names the field, never the key. */
export function privateKeyOf(pem: string, type: 'rsa' | 'ec', field: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new VendorConfigError(`${field} is not a private key in PEM form`);
  }
  if (key.asymmetricKeyType !== type) throw new VendorConfigError(`${field} is not an ${type.toUpperCase()} private key`);
  return key;
}

export function nowInSeconds(now: number = Date.now()): number {
  return Math.floor(now / 1000);
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const VERSION = 1;

/**
 * Encrypts secrets that must be shown again later (workspace secrets, vendor
 * credentials) with AES-256-GCM. Stored form: version byte, 12-byte nonce, 16-byte
 * tag, ciphertext. The associated data binds a ciphertext to its row, so a value
 * copied into another row (another workspace) does not decrypt.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('secret key must be 32 bytes');
  }

  seal(plaintext: string, associatedData: string): Buffer {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), nonce, cipher.getAuthTag(), ciphertext]);
  }

  open(sealed: Buffer, associatedData: string): string {
    if (sealed.length < 29 || sealed[0] !== VERSION) throw new Error('unknown sealed secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(1, 13));
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(sealed.subarray(13, 29));
    return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]).toString('utf8');
  }
}

/**
 * Bearer tokens (service tokens, API keys) are random 256-bit values, so a plain
 * SHA-256 is a sufficient one-way hash: there is nothing to brute-force.
 */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function tokensEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A new random credential: `prefix_` then 32 random bytes in base64url. */
export function generateCredential(prefix: string, bytes = 32): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}

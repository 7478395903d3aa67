import { randomBytes } from 'node:crypto';
import { SecretBox, generateCredential, hashToken } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('round-trips a secret for the same row', () => {
    const sealed = box.seal('s3cr3t', 'workspace_key:1');
    expect(sealed.toString('utf8')).not.toContain('s3cr3t');
    expect(box.open(sealed, 'workspace_key:1')).toBe('s3cr3t');
  });

  it('refuses a ciphertext moved to another row', () => {
    const sealed = box.seal('s3cr3t', 'workspace_key:1');
    expect(() => box.open(sealed, 'workspace_key:2')).toThrow();
  });

  it('refuses a tampered ciphertext and a different key', () => {
    const sealed = box.seal('s3cr3t', 'row');
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(() => box.open(tampered, 'row')).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'row')).toThrow();
  });

  it('uses a fresh nonce per seal', () => {
    expect(box.seal('same', 'row').equals(box.seal('same', 'row'))).toBe(false);
  });

  it('rejects keys that are not 32 bytes', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow('32 bytes');
  });
});

describe('credentials', () => {
  it('are prefixed, random and hash deterministically', () => {
    const a = generateCredential('hst');
    const b = generateCredential('hst');
    expect(a).toMatch(/^hst_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(hashToken(a).equals(hashToken(a))).toBe(true);
    expect(hashToken(a).equals(hashToken(b))).toBe(false);
  });
});

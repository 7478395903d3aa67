import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { FieldError } from '@herald/contracts';

/**
 * scrypt (node's built-in) at N=2^15, r=8, p=1: about 32 MiB and tens of milliseconds a
 * hash, OWASP's minimum for scrypt. The parameters are stored with each hash, so they can
 * be raised later without invalidating existing passwords.
 */
const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
/** scrypt needs 128·N·r bytes; node's default cap (32 MiB) is just under it. */
const MAX_MEMORY = 64 * 1024 * 1024;

export const PASSWORD_MIN_LENGTH = 12;
/** Longer passwords add nothing and would let a client make every hash expensive. */
export const PASSWORD_MAX_LENGTH = 256;

/** Why a password is refused, as field errors at `path`; none when it is acceptable. */
export function passwordProblems(password: string, email: string, path = 'password'): FieldError[] {
  const problems: FieldError[] = [];
  if (password.length < PASSWORD_MIN_LENGTH) problems.push({ path, message: `must be at least ${PASSWORD_MIN_LENGTH} characters` });
  if (password.length > PASSWORD_MAX_LENGTH) problems.push({ path, message: `must be at most ${PASSWORD_MAX_LENGTH} characters` });
  // A long run of one character, or a short cycle ('abcabcabcabc'), is long but guessable.
  if (new Set(password).size < 5) problems.push({ path, message: 'must use at least 5 different characters' });
  const lowered = password.toLowerCase();
  const local = email.toLowerCase().split('@')[0];
  if (lowered === email.toLowerCase() || (local.length >= 4 && lowered.includes(local))) {
    problems.push({ path, message: 'must not contain the email address' });
  }
  return problems;
}

function derive(password: string, salt: Buffer, n: number, r: number, p: number, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, length, { N: n, r, p, maxmem: MAX_MEMORY }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** `scrypt$N$r$p$<salt>$<hash>` (base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P, KEY_LENGTH);
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` matches `stored`; a malformed or absent hash matches nothing. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (password.length > PASSWORD_MAX_LENGTH) return false;
  const parts = (stored ?? DECOY_HASH).split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  if (![n, r, p].every(Number.isSafeInteger) || n > 2 ** 20 || r > 32 || p > 16) return false;
  const expected = Buffer.from(parts[5], 'base64url');
  const actual = await derive(password, Buffer.from(parts[4], 'base64url'), n, r, p, expected.length);
  // Unknown operators are checked against a decoy, so the answer takes as long either way.
  return stored !== null && timingSafeEqual(actual, expected);
}

/** A hash of no one's password: what an unknown email is checked against. */
const DECOY_HASH = `scrypt$${N}$${R}$${P}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(KEY_LENGTH).toString('base64url')}`;

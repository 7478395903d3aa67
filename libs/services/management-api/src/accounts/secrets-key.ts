/** Injection token of the 32-byte key that seals workspace secrets (and, later, vendor credentials). */
export const SECRETS_KEY = Symbol('SECRETS_KEY');

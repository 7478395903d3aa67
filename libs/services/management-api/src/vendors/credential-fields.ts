import { createECDH, createPrivateKey } from 'node:crypto';

export type CredentialValue = string | number | boolean;
export type Credentials = Readonly<Record<string, CredentialValue>>;

/** A message saying what is wrong with a value, or undefined when it is fine. */
export type ValueCheck = (value: string) => string | undefined;

/** One credential a vendor needs, as the vendor catalogue declares it. */
export type CredentialField =
  | {
      readonly type: 'string';
      readonly optional: boolean;
      /**
       * What responses show: `full` for settings that are not secret (a host, a sender,
       * a region: an operator must see what is configured), `prefix` (the first
       * characters) for keys and identifiers whose prefix tells them apart, `none` for
       * passwords and private keys.
       */
      readonly shown: 'full' | 'prefix' | 'none';
      /** PEM blocks and JSON documents span lines; everything else is one line, as pasted. */
      readonly multiline: boolean;
      readonly check?: ValueCheck;
      /** The values a choice allows (a form offers them). */
      readonly values?: readonly string[];
    }
  | { readonly type: 'integer'; readonly optional: boolean; readonly min: number; readonly max: number }
  | { readonly type: 'boolean'; readonly optional: boolean };

const MAX_LINE = 4096;
const MAX_DOCUMENT = 16384;

/** An identifier or key that responses show as its first 4 characters and a mask. */
export function identifier(check?: ValueCheck): CredentialField {
  return { type: 'string', optional: false, shown: 'prefix', multiline: false, check };
}

/** A setting that is no secret (a host, a sender address, a region), shown in full. */
export function setting(check?: ValueCheck): CredentialField {
  return { type: 'string', optional: false, shown: 'full', multiline: false, check };
}

/** A password or token that responses never show any part of. */
export function secret(check?: ValueCheck): CredentialField {
  return { type: 'string', optional: false, shown: 'none', multiline: false, check };
}

/** A PEM key or JSON document pasted whole. */
export function document(check: ValueCheck): CredentialField {
  return { type: 'string', optional: false, shown: 'none', multiline: true, check };
}

/** One of a few values (a region, an environment): a setting. */
export function choice(values: readonly string[]): CredentialField {
  return { ...setting((value) => (values.includes(value) ? undefined : `must be one of ${values.join(', ')}`)), values } as CredentialField;
}

export function integer(min: number, max: number): CredentialField {
  return { type: 'integer', optional: false, min, max };
}

export function flag(): CredentialField {
  return { type: 'boolean', optional: false };
}

export function optional(field: CredentialField): CredentialField {
  return { ...field, optional: true };
}

/** The message for one credential value, or undefined when it fits its field. */
export function checkCredential(field: CredentialField, value: unknown): string | undefined {
  switch (field.type) {
    case 'integer':
      return Number.isInteger(value) && (value as number) >= field.min && (value as number) <= field.max
        ? undefined
        : `must be an integer from ${field.min} to ${field.max}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    case 'string': {
      if (typeof value !== 'string') return 'must be a string';
      if (value.trim() === '') return 'must not be empty';
      const max = field.multiline ? MAX_DOCUMENT : MAX_LINE;
      if (value.length > max) return `must be at most ${max} characters`;
      // A pasted key with a stray space or newline fails at the vendor much later, and is invisible once masked.
      if (!field.multiline && (value !== value.trim() || hasControlCharacter(value))) {
        return 'must be one line without surrounding whitespace';
      }
      return field.check?.(value);
    }
  }
}

/**
 * What responses show of a credential. Settings (strings shown in full, integers such as
 * a port, flags) as they are; keys of at least 16 characters their first 4 (enough to
 * tell two keys apart, a negligible part of a long key); everything else, shorter keys
 * and a field the catalogue no longer has included, `********`.
 */
export function shownCredential(field: CredentialField | undefined, value: CredentialValue): CredentialValue {
  if (field === undefined) return '********';
  if (field.type !== 'string') return typeof value === 'string' ? '********' : value;
  if (typeof value !== 'string') return '********';
  if (field.shown === 'full') return value;
  if (field.shown === 'prefix' && value.length >= 16) return `${value.slice(0, 4)}****`;
  return '********';
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

export function matches(pattern: RegExp, message: string): ValueCheck {
  return (value) => (pattern.test(value) ? undefined : message);
}

const ADDRESS = /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/;

/** `noreply@example.com` or `Example <noreply@example.com>`. */
export const emailAddress: ValueCheck = (value) => {
  const named = /^[^<>]*<([^<>]+)>$/.exec(value);
  return ADDRESS.test(named ? named[1] : value) ? undefined : 'must be an email address, optionally as "Name <address>"';
};

export const hostname = matches(
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/,
  'must be a host name',
);

const E164 = /^\+[1-9]\d{6,14}$/;
/** Alphanumeric sender IDs: up to 11 letters, digits and spaces, with at least one letter. */
const SENDER_ID = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;

export const smsSender: ValueCheck = (value) =>
  E164.test(value) || SENDER_ID.test(value) ? undefined : 'must be a phone number in E.164 form (+14155550100) or an alphanumeric sender ID';

export const uuid = matches(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'must be a UUID');

/** A private key in PEM form that Node can load, of the algorithm the vendor signs with. */
export function privateKeyPem(algorithm: 'ec' | 'rsa'): ValueCheck {
  return (value) => {
    try {
      const key = createPrivateKey(value);
      return key.asymmetricKeyType === algorithm ? undefined : `must be an ${algorithm.toUpperCase()} private key`;
    } catch {
      return `must be an ${algorithm.toUpperCase()} private key in PEM form`;
    }
  };
}

/** A Google service account key file: JSON naming the project, the account and its RSA key. */
export const serviceAccountJson: ValueCheck = (value) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return 'must be the service account key file (JSON)';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'must be a JSON object';
  const account = parsed as Record<string, unknown>;
  const missing = ['project_id', 'client_email', 'private_key'].filter((name) => typeof account[name] !== 'string' || account[name] === '');
  if (missing.length > 0) return `must hold ${missing.join(', ')}`;
  if (emailAddress(account.client_email as string)) return 'must hold client_email as an email address';
  return privateKeyPem('rsa')(account.private_key as string) ? 'must hold private_key as an RSA private key in PEM form' : undefined;
};

/** A base64url string (padding allowed) of exactly `bytes` bytes. */
export function base64urlBytes(bytes: number, what: string): ValueCheck {
  return (value) => (/^[A-Za-z0-9_-]+={0,2}$/.test(value) && Buffer.from(value, 'base64url').length === bytes ? undefined : `must be ${what}`);
}

/** Web push services require a contact: a mailto: address or an https: URL. */
export const vapidSubject: ValueCheck = (value) => {
  if (/^mailto:/.test(value)) return emailAddress(value.slice('mailto:'.length)) ? 'must be a mailto: address or an https: URL' : undefined;
  try {
    return new URL(value).protocol === 'https:' ? undefined : 'must be a mailto: address or an https: URL';
  } catch {
    return 'must be a mailto: address or an https: URL';
  }
};

/** True when the VAPID private key (base64url P-256 scalar) belongs to the public key (uncompressed point). */
export function vapidKeysMatch(publicKey: string, privateKey: string): boolean {
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(privateKey, 'base64url'));
    return ecdh.getPublicKey().equals(Buffer.from(publicKey, 'base64url'));
  } catch {
    return false;
  }
}

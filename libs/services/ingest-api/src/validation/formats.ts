/**
 * String formats of the trigger and event bodies. Each is a pure test: no I/O, no
 * clock; the time zone test asks the runtime's ICU data, which is fixed for a process.
 */
export interface StringFormat {
  /** The error for a value that fails, e.g. `must be an email address`. */
  readonly message: string;
  test(value: string): boolean;
}

/** Interface 2.2: 1 to 255 characters of a-z, 0-9, - and _. */
const WORKFLOW_SLUG = /^[a-z0-9_-]{1,255}$/;

export const WORKFLOW_SLUG_FORMAT: StringFormat = {
  message: 'must be a workflow slug: 1 to 255 characters of a-z, 0-9, - and _',
  test: (value) => WORKFLOW_SLUG.test(value),
};

// RFC 5321/5322 "dot-atom" without quoted local parts or IP-literal domains: what
// real mailboxes use. Non-ASCII is allowed (internationalised addresses, RFC 6531).
const LOCAL_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\uffff-]+$/;
const DOMAIN_LABEL = /^(?!-)[A-Za-z0-9\u0080-\uffff-]{1,63}(?<!-)$/;
const DIGITS = /^[0-9]+$/;

export function isEmail(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.indexOf('@');
  if (at <= 0 || at !== value.lastIndexOf('@')) return false;
  const local = value.slice(0, at);
  const labels = value.slice(at + 1).split('.');
  // Splitting on dots turns a leading, trailing or doubled dot into an empty part, which fails.
  if (local.length > 64 || !local.split('.').every((part) => LOCAL_ATOM.test(part))) return false;
  if (labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label))) return false;
  const tld = labels[labels.length - 1];
  return tld.length >= 2 && !DIGITS.test(tld);
}

export const EMAIL: StringFormat = { message: 'must be an email address (local@domain.tld)', test: isEmail };

// E.164 allows at most 15 digits; 7 is the shortest national number in use. Spaces,
// dots, dashes and parentheses are accepted as formatting ("+1 (415) 555-0100")
// because the SDKs pass numbers through unchanged; the value is kept as sent.
const PHONE_FORMATTING = /[ ().-]/g;
const PHONE_DIGITS = /^\+?[0-9]{7,15}$/;

export function isPhoneNumber(value: string): boolean {
  if (value.length > 32 || value.trim() !== value) return false;
  return PHONE_DIGITS.test(value.replace(PHONE_FORMATTING, ''));
}

export const PHONE: StringFormat = {
  message: 'must be a phone number: an optional + and 7 to 15 digits (spaces, dots, dashes and parentheses allowed)',
  test: isPhoneNumber,
};

const HTTP_PREFIX = /^https?:\/\//i;
const WHITESPACE = /\s/;

/** An absolute http(s) URL with a host. The prefix test matters: `new URL('http:x.com')` parses. */
export function isHttpUrl(value: string): boolean {
  if (!HTTP_PREFIX.test(value) || WHITESPACE.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export const HTTP_URL: StringFormat = { message: 'must be an absolute http or https URL', test: isHttpUrl };

// RFC 4648 section 4 (standard alphabet). Padding may be left off, as some encoders do;
// line breaks (MIME style) are not accepted.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The decoded byte length of standard base64 text, or undefined when it is not base64. */
export function base64DecodedSize(value: string): number | undefined {
  if (!BASE64.test(value)) return undefined;
  const padding = value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0;
  if (padding > 0 && value.length % 4 !== 0) return undefined;
  if (value.length % 4 === 1) return undefined;
  return Math.floor(((value.length - padding) * 3) / 4);
}

// An IANA name's shape (`UTC`, `Europe/Paris`, `America/Argentina/Buenos_Aires`,
// `Etc/GMT+5`); rules out offsets (`+05:00`) that Intl might accept but the tz database does not name.
const TIME_ZONE_SHAPE = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,2}$/;
const MAX_CACHED_ZONES = 2000;
// Memo of answers: building an Intl.DateTimeFormat costs tens of microseconds and a
// bulk trigger may name the same zone 10,000 times. Bounded, and results never change
// within a process, so callers still see a pure function.
const zoneAnswers = new Map<string, boolean>();

/**
 * Whether the runtime's tz database knows the zone, links and legacy names included
 * (`Asia/Calcutta`, `US/Pacific`), case-insensitively as ECMA-402 specifies.
 * `Intl.supportedValuesOf('timeZone')` is not enough: it lists canonical names only and leaves out `UTC`.
 */
export function isTimeZone(value: string): boolean {
  if (value.length > 64 || !TIME_ZONE_SHAPE.test(value)) return false;
  const known = zoneAnswers.get(value);
  if (known !== undefined) return known;
  let valid: boolean;
  try {
    valid = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone !== '';
  } catch {
    valid = false;
  }
  if (zoneAnswers.size < MAX_CACHED_ZONES) zoneAnswers.set(value, valid);
  return valid;
}

export const TIME_ZONE: StringFormat = { message: 'must be an IANA time zone name such as America/New_York or UTC', test: isTimeZone };

// BCP 47 language[-script][-region], with `_` accepted as the separator because
// SuprSend's own examples write `en_GB`. Extensions and private-use tags are not locales
// a template variant can be chosen by.
const LOCALE_SHAPE = /^[A-Za-z]{2,3}(?:[-_][A-Za-z]{4})?(?:[-_](?:[A-Za-z]{2}|[0-9]{3}))?$/;

export const LOCALE: StringFormat = {
  message: 'must be a locale code: language[-Script][-REGION], e.g. en, en-US, en_GB, zh-Hant-TW',
  test: (value) => LOCALE_SHAPE.test(value),
};

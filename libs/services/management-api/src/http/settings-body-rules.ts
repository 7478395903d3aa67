import { Type } from '@sinclair/typebox';
import { isEmail, isISO8601, isURL } from 'class-validator';
import { CHANNELS, Check, Formats, MESSAGE_STATUSES, normalizeOrigin } from '@herald/contracts';

/**
 * The string formats, named checks and builders of the settings bodies (workspaces,
 * workspace and API keys, public keys, operators, status webhooks, suppressions, vendors),
 * spread into management-api's kit (management-schemas.ts). They keep what the
 * class-validator DTOs these bodies were accepted and refused by: the same validators for
 * email addresses, URLs and ISO 8601 times, and a bad item of a list reported at the
 * list's own path (`allowed_domains: [1] must be an origin ...`), as the DTOs' `each`
 * rules reported it.
 */

const WEBHOOK_URL = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };

export const SETTINGS_FORMATS: Formats = {
  email: (value) => (isEmail(value) ? undefined : 'must be an email address'),
  /** Where a status webhook POSTs: http allowed (a receiver on the same network), no TLD needed (`http://receiver:8080`). */
  http_url: (value) => (isURL(value, WEBHOOK_URL) ? undefined : 'must be an http or https URL'),
  /** A vendor's API base URL; underscores allowed in host names (a docker service such as `mock_vendor`). */
  vendor_base_url: (value) => (isURL(value, { ...WEBHOOK_URL, allow_underscores: true }) ? undefined : 'must be an http or https URL'),
  /** Week and ordinal dates (`2030-W05`) pass, as they did; the handler refuses what `Date` cannot read. */
  iso_8601: (value) => (isISO8601(value, { strict: true }) ? undefined : 'must be an ISO 8601 date and time'),
};

const MAX_VENDOR_TEST_IDENTITY_JSON = 4096;

/** Each item one of `values`; the message names them all. */
const eachOneOf =
  (values: readonly string[]): Check =>
  (value) =>
    Array.isArray(value) && value.some((item) => typeof item !== 'string' || !values.includes(item)) ? `each must be one of ${values.join(', ')}` : undefined;

/** Each item a string of `min` to `max` characters. */
const eachText =
  (min: number, max: number): Check =>
  (value) =>
    Array.isArray(value) && value.some((item) => typeof item !== 'string' || item.length < min || item.length > max)
      ? `each must be a string of ${min} to ${max} characters`
      : undefined;

export const SETTINGS_CHECKS: Readonly<Record<string, Check>> = {
  each_message_status: eachOneOf(MESSAGE_STATUSES),
  each_channel: eachOneOf(CHANNELS),
  each_slug: eachText(1, 128),
  each_domain: eachText(1, 253),
  /** The first item that is not a browser origin, by its index. */
  browser_origins: (value) => {
    const bad = Array.isArray(value) ? value.findIndex((item) => typeof item !== 'string' || normalizeOrigin(item) === null) : -1;
    return bad === -1 ? undefined : `[${bad}] must be an origin such as https://app.example.com (scheme, host and optional port; no path)`;
  },
  vendor_test_identity: (value) =>
    typeof value === 'object' && value !== null && JSON.stringify(value).length > MAX_VENDOR_TEST_IDENTITY_JSON
      ? `must be at most ${MAX_VENDOR_TEST_IDENTITY_JSON} characters of JSON`
      : undefined,
};

/** A string of `min` to `max` characters, with one message for every way it fails. */
export function BoundedText(min: number, max: number, options: Record<string, unknown> = {}) {
  const message = min === 0 ? `must be a string of at most ${max} characters` : `must be a string of ${min} to ${max} characters`;
  return Type.String({ ...(min > 0 ? { minLength: min } : {}), maxLength: max, 'x-message': message, ...options });
}

/**
 * A list whose items the named check (above) judges as a whole, so that a bad item is
 * reported at the list's path. `items` only describes them: a rule there would report at
 * the item's path too. `noun` words the count rules (`must hold at most 50 origins (it holds 51)`).
 */
export function CheckedList<T extends string>(check: string, item: string, noun: string, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[]>({ type: 'array', items: { description: item }, 'x-check': check, 'x-noun': noun, ...options });
}

import { CHANNELS, INPUT_LIMITS } from '@herald/contracts';
import { SeededRandom } from './seeded-random';

/**
 * Random bodies that must pass: every optional field sometimes present, sometimes null,
 * sometimes absent; single-value channel shorthands; SDK-shaped push tokens and
 * attachments; extra properties of any JSON (deep nesting and long strings included).
 */
type Body = Record<string, unknown>;

const EMAILS = ['jane@example.com', 'a.b+tag@sub.example.co.uk', "o'neil@example.ie", 'user@xn--bcher-kva.example', 'jörg@bücher.de'];
const PHONES = ['+14155550100', '+1 (415) 555-0100', '4155550100', '+44 20 7946 0958', '+91-98765-43210'];
const ZONES = ['UTC', 'Etc/UTC', 'GMT', 'America/New_York', 'Asia/Kolkata', 'Asia/Calcutta', 'Europe/Kyiv', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'US/Pacific'];
const LOCALES = ['en', 'en-US', 'en_GB', 'pt_BR', 'zh-Hant-TW', 'es-419', 'fil'];
const URLS = ['https://example.com/a.pdf', 'http://files.example.org:8080/x?y=1#z', 'https://hooks.slack.com/services/T/B/X', 'https://[::1]:8443/p'];
export const TENANTS = ['acme', 'globex', 'initech'];

function maybe(rng: SeededRandom, body: Body, key: string, make: () => unknown, probability = 0.5): void {
  if (rng.chance(probability)) body[key] = make();
}

/** Any JSON value: what `data`, `properties` and extra recipient properties may hold. */
export function randomJson(rng: SeededRandom, depth = 0): unknown {
  const roll = rng.between(0, depth > 3 ? 4 : 7);
  switch (roll) {
    case 0:
      return rng.string(rng.between(0, 12));
    case 1:
      return rng.between(-1000, 1000) / rng.pick([1, 7, 100]);
    case 2:
      return rng.chance(0.5);
    case 3:
      return null;
    case 4:
      return rng.chance(0.02) ? 'x'.repeat(rng.between(10_000, 60_000)) : rng.string(3);
    case 5:
      return Array.from({ length: rng.between(0, 4) }, () => randomJson(rng, depth + 1));
    case 6:
      // Deep, yet within the input limit wherever randomJson is placed (at most about 12 levels down).
      return rng.chance(0.1) ? deeplyNested(rng.between(20, INPUT_LIMITS.maxDepth - 16)) : Object.fromEntries(Array.from({ length: rng.between(0, 4) }, (_, i) => [`k${i}`, randomJson(rng, depth + 1)]));
    default:
      return { nested: { list: [1, 'two', { three: 3 }] } };
  }
}

function deeplyNested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { inner: value };
  return value;
}

function listOrSingle<T>(rng: SeededRandom, make: () => T): T | T[] {
  return rng.chance(0.15) ? make() : Array.from({ length: rng.between(0, 3) }, make);
}

function base64(rng: SeededRandom): string {
  // The largest inline attachment allowed (51,199 bytes) sometimes, filled cheaply.
  const bytes = rng.chance(0.05) ? Buffer.alloc(51_199, rng.between(0, 255)) : Buffer.from(Array.from({ length: rng.between(1, 300) }, () => rng.between(0, 255)));
  const text = bytes.toString('base64');
  return rng.chance(0.2) ? text.replace(/=+$/, '') : text;
}

function slackEntry(rng: SeededRandom): Body {
  const token = { access_token: `xoxb-${rng.string(8)}` };
  const extra = rng.chance(0.3) ? { team_id: 'T123' } : {};
  return rng.pick<() => Body>([
    () => ({ email: rng.pick(EMAILS), ...token, ...extra }),
    () => ({ user_id: `U${rng.string(8)}`, ...token, ...extra }),
    () => ({ channel: `C${rng.string(8)}`, ...token }),
    () => ({ channel_id: `C${rng.string(8)}`, ...token }),
    () => ({ incoming_webhook: { url: rng.pick(URLS) }, ...extra }),
  ])();
}

function msTeamsEntry(rng: SeededRandom): Body {
  const base = { tenant_id: rng.string(8), service_url: 'https://smba.trafficmanager.net/amer' };
  return rng.pick<() => Body>([
    () => ({ ...base, conversation_id: `19:${rng.string(6)}` }),
    () => ({ ...base, user_id: `29:${rng.string(6)}` }),
    () => ({ incoming_webhook: { url: rng.pick(URLS) } }),
  ])();
}

function pushToken(rng: SeededRandom): unknown {
  if (rng.chance(0.6)) return rng.string(rng.between(1, 40));
  return { token: rng.string(20), provider: rng.pick(['fcm', 'xiaomi', 'apns']), device_id: rng.chance(0.5) ? null : 'device-1' };
}

function webPush(rng: SeededRandom): Body {
  const subscription: Body = { endpoint: rng.pick(URLS), keys: { p256dh: rng.string(20), auth: rng.string(8) } };
  if (rng.chance(0.3)) subscription.expirationTime = null;
  return subscription;
}

/** The channel and profile fields shared by users and objects. */
function addProfile(rng: SeededRandom, body: Body, tenant: string | undefined): void {
  maybe(rng, body, '$email', () => listOrSingle(rng, () => rng.pick(EMAILS)), 0.4);
  maybe(rng, body, '$sms', () => listOrSingle(rng, () => rng.pick(PHONES)), 0.2);
  maybe(rng, body, '$whatsapp', () => listOrSingle(rng, () => rng.pick(PHONES)), 0.2);
  maybe(rng, body, '$inbox', () => listOrSingle(rng, () => rng.string(12)), 0.2);
  maybe(rng, body, '$androidpush', () => listOrSingle(rng, () => pushToken(rng)), 0.2);
  maybe(rng, body, '$iospush', () => listOrSingle(rng, () => pushToken(rng)), 0.2);
  maybe(rng, body, '$webpush', () => listOrSingle(rng, () => webPush(rng)), 0.2);
  maybe(rng, body, '$slack', () => listOrSingle(rng, () => slackEntry(rng)), 0.3);
  maybe(rng, body, '$ms_teams', () => listOrSingle(rng, () => msTeamsEntry(rng)), 0.3);
  maybe(rng, body, '$channels', () => rng.subset(CHANNELS), 0.2);
  maybe(rng, body, '$timezone', () => rng.pick(ZONES), 0.2);
  maybe(rng, body, '$locale', () => rng.pick(LOCALES), 0.2);
  maybe(rng, body, '$context', () => (tenant !== undefined && rng.chance(0.8) ? { tenant_id: tenant } : rng.pick([{}, { tenant_id: null }])), 0.2);
  for (let index = rng.between(0, 3); index > 0; index -= 1) body[rng.pick(['name', 'plan', '$preferred_language', `prop_${index}`])] = randomJson(rng);
}

export function randomUser(rng: SeededRandom, tenant: string | undefined): Body {
  const user: Body = {};
  if (rng.chance(0.15)) {
    user.is_transient = true;
    maybe(rng, user, 'distinct_id', () => rng.pick([null, `anon-${rng.string(4)}`]), 0.3);
  } else {
    user.distinct_id = `user-${rng.string(rng.between(1, 20))}`;
    maybe(rng, user, 'is_transient', () => rng.pick([false, null]), 0.1);
  }
  addProfile(rng, user, tenant);
  return user;
}

function randomRecipient(rng: SeededRandom, tenant: string | undefined): unknown {
  const roll = rng.next();
  if (roll < 0.35) return `user-${rng.string(rng.between(1, 30))}`;
  if (roll < 0.8) return randomUser(rng, tenant);
  const object: Body = { object_type: rng.pick(['teams', 'departments']), id: rng.string(rng.between(1, 20)) };
  addProfile(rng, object, tenant);
  return object;
}

function attachment(rng: SeededRandom): Body {
  if (rng.chance(0.5)) {
    const item: Body = { url: rng.pick(URLS) };
    maybe(rng, item, 'filename', () => 'file.pdf');
    maybe(rng, item, 'ignore_if_error', () => rng.chance(0.5));
    if (rng.chance(0.3)) Object.assign(item, { data: null, contentType: null });
    return item;
  }
  const item: Body = { data: base64(rng) };
  maybe(rng, item, 'filename', () => 'hello.bin');
  maybe(rng, item, 'contentType', () => rng.pick(['application/pdf', false, null]));
  if (rng.chance(0.3)) Object.assign(item, { url: null, ignore_if_error: false });
  return item;
}

/** Free-form data or event properties, with valid `$attachments` sometimes. */
export function randomProperties(rng: SeededRandom): Body {
  const data: Body = {};
  for (let index = rng.between(0, 5); index > 0; index -= 1) data[`var_${index}`] = randomJson(rng);
  maybe(rng, data, '$attachments', () => Array.from({ length: rng.between(0, 3) }, () => attachment(rng)), 0.3);
  return data;
}

function idempotencyKey(rng: SeededRandom): string {
  const core = rng.chance(0.05) ? rng.string(255) : rng.string(rng.between(1, 40));
  return `${rng.pick(['', ' ', '\t', '  '])}${core}${rng.pick(['', ' ', '\n'])}`;
}

export function randomValidTrigger(rng: SeededRandom): Body {
  const tenant = rng.chance(0.5) ? rng.pick(TENANTS) : undefined;
  const count = rng.chance(0.03) ? 100 : rng.between(1, 8);
  const body: Body = {
    workflow: rng.chance(0.02) ? rng.string(255) : rng.string(rng.between(1, 40)),
    recipients: Array.from({ length: count }, () => randomRecipient(rng, tenant)),
  };
  if (tenant !== undefined) body.tenant_id = tenant;
  else maybe(rng, body, 'tenant_id', () => null, 0.1);
  maybe(rng, body, '$idempotency_key', () => (rng.chance(0.1) ? null : idempotencyKey(rng)));
  maybe(rng, body, 'actor', () => rng.pick<() => unknown>([() => `actor-${rng.string(5)}`, () => randomUser(rng, tenant), () => null])());
  maybe(rng, body, 'data', () => (rng.chance(0.1) ? null : randomProperties(rng)), 0.7);
  maybe(rng, body, 'cancellation_key', () => rng.string(10), 0.1);
  maybe(rng, body, 'metadata', () => randomJson(rng), 0.1);
  return body;
}

export function randomValidEvent(rng: SeededRandom): Body {
  const body: Body = {
    distinct_id: `user-${rng.string(rng.between(1, 20))}`,
    event: rng.chance(0.05) ? rng.string(255) : `${rng.pick(['$', 'ss_', '', 'ON '])}${rng.string(rng.between(1, 30))}`,
  };
  maybe(rng, body, 'properties', () => (rng.chance(0.1) ? null : randomProperties(rng)), 0.7);
  maybe(rng, body, 'tenant_id', () => rng.pick([...TENANTS, null]), 0.3);
  maybe(rng, body, '$idempotency_key', () => idempotencyKey(rng), 0.3);
  maybe(rng, body, '$insert_id', () => '6f2d0c3e-3c4e-4b53-9a51-0c3c8c1b2a11', 0.3);
  maybe(rng, body, '$time', () => 1_700_000_000_000, 0.3);
  return body;
}

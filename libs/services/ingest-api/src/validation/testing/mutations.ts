import { SeededRandom } from './seeded-random';
import { setAt } from './json-path';

/**
 * Invalidating mutations for the fuzz tests. Each slot is a location the validator
 * checks, with a kind; each kind has generators of values that are wrong there, so a
 * mutated body is invalid by construction and the test can demand `ok: false` and an
 * error at (or above, or below) the mutated path.
 */
export type SlotKind =
  | 'slug'
  | 'text'
  | 'idempotency'
  | 'recipients'
  | 'recipient'
  | 'actor'
  | 'object'
  | 'channelList'
  | 'channelFilter'
  | 'email'
  | 'phone'
  | 'token'
  | 'pushToken'
  | 'timezone'
  | 'locale'
  | 'boolean'
  | 'url'
  | 'base64'
  | 'slackEntry'
  | 'teamsEntry'
  | 'webpushEntry'
  | 'attachments'
  | 'attachment'
  | 'contextTenant'
  | 'optionalText'
  | 'eventName';

export interface Slot {
  readonly path: string;
  readonly kind: SlotKind;
  /** Removing it is an error too. */
  readonly removable?: boolean;
}

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function deep(depth: number, asArray: boolean): unknown {
  let value: unknown = 7;
  for (let level = 0; level < depth; level += 1) value = asArray ? [value] : { junk_inner: value };
  return value;
}

/** Junk that is not a string (and never null: null counts as absent, which optional fields allow). */
function nonString(rng: SeededRandom): unknown {
  return rng.pick<() => unknown>([
    () => rng.between(-5, 5),
    () => 1e308,
    () => rng.chance(0.5),
    () => [rng.between(0, 9), true],
    () => deep(rng.between(2, 800), true),
    () => ({ junk_1: 'x', junk_2: [1] }),
    () => deep(rng.between(2, 800), false),
  ])();
}

/** Junk that is not an object. */
function nonObject(rng: SeededRandom): unknown {
  return rng.pick<() => unknown>([() => rng.between(-5, 5), () => 'a string', () => true, () => [{ junk: 1 }], () => deep(rng.between(2, 800), true)])();
}

function huge(rng: SeededRandom, min: number): string {
  return 'x'.repeat(rng.between(min, min + 20_000));
}

const BAD: Record<SlotKind, (rng: SeededRandom) => unknown> = {
  slug: (rng) => rng.pick<() => unknown>([() => nonString(rng), () => '', () => '   ', () => 'Has Space', () => 'UPPER', () => huge(rng, 256), () => 'ünï'])(),
  text: (rng) => rng.pick<() => unknown>([() => nonString(rng), () => '', () => ' \t '])(),
  idempotency: (rng) => rng.pick<() => unknown>([() => nonString(rng), () => '   ', () => huge(rng, 256)])(),
  recipients: (rng) =>
    rng.pick<() => unknown>([
      () => nonObject(rng),
      () => ({ junk: 1 }),
      () => [],
      () => Array.from({ length: rng.between(101, 160) }, (_, index) => `user-${index}`),
    ])(),
  recipient: (rng) =>
    rng.pick<() => unknown>([
      () => rng.between(0, 9),
      () => false,
      () => deep(rng.between(2, 800), true),
      () => '',
      () => '  ',
      () => ({ junk: 'x' }),
      () => deep(rng.between(2, 800), false),
      () => ({ object_type: nonString(rng) }),
    ])(),
  actor: (rng) => rng.pick<() => unknown>([() => 42, () => true, () => ['a'], () => '', () => ({ junk: 1 }), () => deep(rng.between(2, 800), false)])(),
  object: nonObject,
  channelList: (rng) => rng.pick<() => unknown>([() => 12, () => true, () => [[['deep']]], () => [rng.pick(['ok@example.com', 'tok']), 17]])(),
  channelFilter: (rng) => rng.pick<() => unknown>([() => 'email', () => 3, () => ({ email: true }), () => ['email', 'fax'], () => ['EMAIL']])(),
  email: (rng) =>
    rng.pick<() => unknown>([
      () => nonString(rng),
      () => 'no-at-sign',
      () => 'a@b',
      () => 'a b@example.com',
      () => `${huge(rng, 300)}@example.com`,
      () => '@example.com',
      () => 'a@@example.com',
      () => 'a..b@example.com',
    ])(),
  phone: (rng) => rng.pick<() => unknown>([() => nonString(rng), () => 'call me', () => '12', () => `+${'1'.repeat(20)}`, () => '++14155550100'])(),
  token: (rng) => rng.pick<() => unknown>([() => nonString(rng), () => '', () => '   '])(),
  pushToken: (rng) => rng.pick<() => unknown>([() => 5, () => '', () => ({ junk: 'x' }), () => ({ token: '' }), () => ({ token: 't', provider: 9 })])(),
  timezone: (rng) => rng.pick<() => unknown>([() => nonString(rng), () => 'Mars/Olympus_Mons', () => '+05:00', () => huge(rng, 100), () => 'America/New York', () => ''])(),
  locale: (rng) => rng.pick<() => unknown>([() => nonString(rng), () => 'english-language', () => '1234', () => 'en-', () => 'e', () => huge(rng, 50)])(),
  boolean: (rng) => rng.pick<unknown>(['true', 1, 0, [], {}, 'false']),
  url: (rng) =>
    rng.pick<() => unknown>([
      () => nonString(rng),
      () => 'ftp://example.com/a',
      () => 'not a url',
      () => 'http://',
      () => '//example.com/x',
      () => 'https://exa mple.com',
      () => 'javascript:alert(1)',
      () => huge(rng, 1000),
    ])(),
  base64: (rng) => rng.pick<() => unknown>([() => nonString(rng), () => '', () => '@@@@', () => 'a', () => 'ab=c', () => 'A'.repeat(rng.between(68_268, 90_000))])(),
  slackEntry: (rng) =>
    rng.pick<() => unknown>([
      () => nonObject(rng),
      () => ({ junk: 1 }),
      () => ({ email: 'a@example.com', user_id: 'U1', access_token: 'x' }),
      () => ({ channel: 'C1', access_token: '' }),
      () => ({ incoming_webhook: 'https://hooks.slack.com/x' }),
    ])(),
  teamsEntry: (rng) =>
    rng.pick<() => unknown>([
      () => nonObject(rng),
      () => ({ junk: 1 }),
      () => ({ tenant_id: 't', service_url: 'https://a.example', conversation_id: 'c', user_id: 'u' }),
      () => ({ conversation_id: 'c', tenant_id: 't' }),
      () => ({ incoming_webhook: { url: 5 } }),
    ])(),
  webpushEntry: (rng) => rng.pick<() => unknown>([() => nonObject(rng), () => ({ junk: 1 }), () => ({ endpoint: 'https://a.example' }), () => ({ endpoint: 'x', keys: {} })])(),
  attachments: (rng) => rng.pick<() => unknown>([() => 1, () => 'file.pdf', () => ({ url: 'https://a.example' }), () => [7]])(),
  attachment: (rng) => rng.pick<() => unknown>([() => nonObject(rng), () => ({ filename: 'x' }), () => ({ url: 'https://a.example/x', data: 'QUJD' })])(),
  contextTenant: (rng) => rng.pick<() => unknown>([() => nonString(rng), () => '', () => 'some-other-tenant'])(),
  optionalText: (rng) => rng.pick<unknown>([5, true, ['x'], { x: 1 }]),
  eventName: (rng) => rng.pick<() => unknown>([() => nonString(rng), () => '', () => '  ', () => huge(rng, 256)])(),
};

/** A wrong value for a slot of `kind`. */
export function badValue(rng: SeededRandom, kind: SlotKind): unknown {
  return BAD[kind](rng);
}

const at = (parent: string, key: string): string => (parent === '' ? key : `${parent}.${key}`);

function listSlots(slots: Slot[], owner: Json, path: string, key: string, itemKind: SlotKind, visit?: (item: unknown, itemPath: string) => void): void {
  const value = owner[key];
  slots.push({ path: at(path, key), kind: 'channelList' });
  if (!Array.isArray(value)) return;
  value.forEach((item, index) => {
    slots.push({ path: `${at(path, key)}[${index}]`, kind: itemKind });
    visit?.(item, `${at(path, key)}[${index}]`);
  });
}

function slackFieldSlots(slots: Slot[], entry: unknown, path: string): void {
  if (!isRecord(entry)) return;
  const forms = ['email', 'user_id', 'channel', 'channel_id', 'incoming_webhook'].filter((key) => entry[key] !== undefined && entry[key] !== null);
  if (forms.length !== 1 || (forms[0] === 'channel' && entry.channel_id !== undefined)) return;
  if (forms[0] === 'incoming_webhook') return webhookSlots(slots, entry, path);
  // access_token may be left out (the vendor's bot token stands in), but not blank or a non-string.
  slots.push({ path: at(path, 'access_token'), kind: 'text' });
  slots.push({ path: at(path, forms[0]), kind: forms[0] === 'email' ? 'email' : 'text', removable: true });
}

function teamsFieldSlots(slots: Slot[], entry: unknown, path: string): void {
  if (!isRecord(entry)) return;
  const forms = ['conversation_id', 'user_id', 'incoming_webhook'].filter((key) => entry[key] !== undefined && entry[key] !== null);
  if (forms.length !== 1) return;
  if (forms[0] === 'incoming_webhook') return webhookSlots(slots, entry, path);
  slots.push({ path: at(path, 'tenant_id'), kind: 'text', removable: true });
  slots.push({ path: at(path, 'service_url'), kind: 'url', removable: true });
  slots.push({ path: at(path, forms[0]), kind: 'text', removable: true });
}

function webhookSlots(slots: Slot[], entry: Json, path: string): void {
  slots.push({ path: at(path, 'incoming_webhook'), kind: 'object', removable: true });
  if (isRecord(entry.incoming_webhook)) slots.push({ path: at(at(path, 'incoming_webhook'), 'url'), kind: 'url', removable: true });
}

function webpushFieldSlots(slots: Slot[], entry: unknown, path: string): void {
  if (!isRecord(entry)) return;
  slots.push({ path: at(path, 'endpoint'), kind: 'url', removable: true }, { path: at(path, 'keys'), kind: 'object', removable: true });
  if (isRecord(entry.keys)) {
    slots.push({ path: at(at(path, 'keys'), 'p256dh'), kind: 'text', removable: true }, { path: at(at(path, 'keys'), 'auth'), kind: 'text', removable: true });
  }
}

function profileSlots(slots: Slot[], owner: Json, path: string): void {
  listSlots(slots, owner, path, '$email', 'email');
  listSlots(slots, owner, path, '$sms', 'phone');
  listSlots(slots, owner, path, '$whatsapp', 'phone');
  listSlots(slots, owner, path, '$inbox', 'token');
  listSlots(slots, owner, path, '$androidpush', 'pushToken');
  listSlots(slots, owner, path, '$iospush', 'pushToken');
  listSlots(slots, owner, path, '$webpush', 'webpushEntry', (item, itemPath) => webpushFieldSlots(slots, item, itemPath));
  listSlots(slots, owner, path, '$slack', 'slackEntry', (item, itemPath) => slackFieldSlots(slots, item, itemPath));
  listSlots(slots, owner, path, '$ms_teams', 'teamsEntry', (item, itemPath) => teamsFieldSlots(slots, item, itemPath));
  slots.push({ path: at(path, '$channels'), kind: 'channelFilter' });
  slots.push({ path: at(path, '$timezone'), kind: 'timezone' }, { path: at(path, '$locale'), kind: 'locale' }, { path: at(path, '$context'), kind: 'object' });
  if (isRecord(owner.$context)) slots.push({ path: at(at(path, '$context'), 'tenant_id'), kind: 'contextTenant' });
}

function userSlots(slots: Slot[], user: Json, path: string): void {
  const transient = user.is_transient === true;
  slots.push({ path: at(path, 'distinct_id'), kind: 'text', removable: !transient }, { path: at(path, 'is_transient'), kind: 'boolean' });
  profileSlots(slots, user, path);
}

function attachmentSlots(slots: Slot[], holder: Json, path: string): void {
  slots.push({ path: at(path, '$attachments'), kind: 'attachments' });
  const items = holder.$attachments;
  if (!Array.isArray(items)) return;
  items.forEach((item, index) => {
    const itemPath = `${at(path, '$attachments')}[${index}]`;
    slots.push({ path: itemPath, kind: 'attachment' });
    if (!isRecord(item)) return;
    slots.push({ path: at(itemPath, 'filename'), kind: 'optionalText' }, { path: at(itemPath, 'ignore_if_error'), kind: 'boolean' });
    const hasUrl = item.url !== undefined && item.url !== null;
    const hasData = item.data !== undefined && item.data !== null;
    if (hasUrl && !hasData) slots.push({ path: at(itemPath, 'url'), kind: 'url', removable: true });
    if (hasData && !hasUrl) {
      slots.push({ path: at(itemPath, 'data'), kind: 'base64', removable: true }, { path: at(itemPath, 'contentType'), kind: 'optionalText' });
    }
  });
}

/** Every checked location of a trigger body (valid or already mutated). */
export function triggerSlots(body: Json): Slot[] {
  const slots: Slot[] = [
    { path: 'workflow', kind: 'slug', removable: true },
    { path: 'recipients', kind: 'recipients', removable: true },
    { path: 'tenant_id', kind: 'text' },
    { path: '$idempotency_key', kind: 'idempotency' },
    { path: 'actor', kind: 'actor' },
    { path: 'data', kind: 'object' },
  ];
  if (Array.isArray(body.recipients)) {
    body.recipients.forEach((recipient, index) => {
      const path = `recipients[${index}]`;
      slots.push({ path, kind: 'recipient' });
      if (!isRecord(recipient)) return;
      if (Object.hasOwn(recipient, 'object_type')) {
        slots.push({ path: at(path, 'object_type'), kind: 'text' }, { path: at(path, 'id'), kind: 'text', removable: true });
        profileSlots(slots, recipient, path);
      } else {
        userSlots(slots, recipient, path);
      }
    });
  }
  if (isRecord(body.actor)) userSlots(slots, body.actor, 'actor');
  if (isRecord(body.data)) attachmentSlots(slots, body.data, 'data');
  return slots;
}

/** Every checked location of an event body. */
export function eventSlots(body: Json): Slot[] {
  const slots: Slot[] = [
    { path: 'distinct_id', kind: 'text', removable: true },
    { path: 'event', kind: 'eventName', removable: true },
    { path: 'properties', kind: 'object' },
    { path: 'tenant_id', kind: 'text' },
    { path: '$idempotency_key', kind: 'idempotency' },
  ];
  if (isRecord(body.properties)) attachmentSlots(slots, body.properties, 'properties');
  return slots;
}

/**
 * Applies 1 (half the time) to 4 mutations to `body` (in place) at slots chosen by `slotsOf`; returns
 * the mutated paths. A mutation either sets a wrong value or removes a required field.
 */
export function mutate(rng: SeededRandom, body: Json, slotsOf: (body: Json) => Slot[]): string[] {
  const paths: string[] = [];
  for (let count = rng.chance(0.5) ? 1 : rng.between(2, 4); count > 0; count -= 1) {
    // Kind first, then a slot of it: rare kinds (a $context, an inline attachment) get as many tries as common ones.
    const slots = slotsOf(body);
    const kind = rng.pick([...new Set(slots.map((slot) => slot.kind))]);
    const slot = rng.pick(slots.filter((candidate) => candidate.kind === kind));
    const remove = slot.removable === true && rng.chance(0.3);
    if (setAt(body, slot.path, remove ? undefined : badValue(rng, slot.kind), remove)) paths.push(slot.path);
  }
  return paths;
}


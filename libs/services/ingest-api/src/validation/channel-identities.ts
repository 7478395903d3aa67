import { CHANNELS, Channel, InlineChannels, PushToken, WebPushSubscription } from '@herald/contracts';
import { readMsTeamsEntry, readSlackEntry } from './chat-identities';
import { EMAIL, HTTP_URL, PHONE } from './formats';
import { Issues } from './issues';
import { ItemReader, ObjectReader, stringItem, withoutUndefined } from './json-reader';

/** The inline channel keys of a recipient or actor; everything else but identity is a property. */
export const CHANNEL_KEYS = ['$email', '$sms', '$whatsapp', '$inbox', '$androidpush', '$iospush', '$webpush', '$slack', '$ms_teams'] as const;

/** Reads `$email` ... `$ms_teams`; a key is set on the result only when the client sent it. */
export function readInlineChannels(reader: ObjectReader): InlineChannels {
  const list = <T>(key: (typeof CHANNEL_KEYS)[number], item: ItemReader<T>): readonly T[] | undefined =>
    reader.list(key, item, { single: true });
  return withoutUndefined({
    email: list('$email', stringItem({ format: EMAIL })),
    sms: list('$sms', stringItem({ format: PHONE })),
    whatsapp: list('$whatsapp', stringItem({ format: PHONE })),
    inbox: list('$inbox', stringItem({ nonBlank: true })),
    androidpush: list('$androidpush', readPushToken),
    iospush: list('$iospush', readPushToken),
    webpush: list('$webpush', readWebPushSubscription),
    slack: list('$slack', readSlackEntry),
    ms_teams: list('$ms_teams', readMsTeamsEntry),
  });
}

/** `$channels`: the channels to send on, each from the channel enumeration. */
export function readChannelFilter(reader: ObjectReader): readonly Channel[] | undefined {
  return reader.list('$channels', readChannel);
}

/** One channel name of the enumeration. */
export const readChannel: ItemReader<Channel> = (value, path, issues) => {
  const channel = CHANNELS.find((candidate) => candidate === value);
  if (channel === undefined) issues.add(path, `must be one of ${CHANNELS.join(', ')}`);
  return channel;
};

/**
 * A push token: the bare string of the reference, or the `{token, provider, device_id,
 * bundle_id}` object the SuprSend SDKs' schema requires, so both kinds of client pass.
 */
export const readPushToken: ItemReader<PushToken> = (value, path, issues) => {
  if (typeof value === 'string') return readNonBlank(value, path, issues);
  const entry = ObjectReader.of(value, path, issues);
  if (entry === undefined) return undefined;
  const token = entry.string('token', { required: true, nonBlank: true });
  const optional = { provider: entry.string('provider', { nonBlank: true }), device_id: entry.string('device_id'), bundle_id: entry.string('bundle_id') };
  const wrong = Object.entries(optional).some(([key, read]) => read === undefined && entry.has(key));
  return token === undefined || wrong ? undefined : withoutUndefined({ token, ...optional });
};

function readNonBlank(value: string, path: string, issues: Issues): PushToken | undefined {
  if (value.trim() !== '') return { token: value };
  issues.add(path, 'must not be empty');
  return undefined;
}

/** A browser push subscription: `endpoint` (http(s) URL) and `keys.p256dh` / `keys.auth`; other keys are ignored. */
const readWebPushSubscription: ItemReader<WebPushSubscription> = (value, path, issues) => {
  const entry = ObjectReader.of(value, path, issues);
  if (entry === undefined) return undefined;
  const endpoint = entry.string('endpoint', { required: true, format: HTTP_URL });
  const keys = entry.object('keys', true);
  const p256dh = keys?.string('p256dh', { required: true, nonBlank: true });
  const auth = keys?.string('auth', { required: true, nonBlank: true });
  if (endpoint === undefined || p256dh === undefined || auth === undefined) return undefined;
  return { endpoint, keys: { p256dh, auth } };
};

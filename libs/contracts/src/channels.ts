/** The channels of interface section 1, in its order. */
export const CHANNELS = ['email', 'sms', 'inbox', 'androidpush', 'iospush', 'slack', 'ms_teams', 'webpush', 'whatsapp'] as const;
export type Channel = (typeof CHANNELS)[number];

/**
 * Keys of a channel identity that carry a credential (a Slack bot token, an incoming
 * webhook's secret URL, web-push keys): stored for delivery, never shown by a read API.
 * The reference strips the same keys from the identities it shows.
 */
const IDENTITY_CREDENTIAL_KEYS: ReadonlySet<string> = new Set(['access_token', 'keys', 'incoming_webhook']);

/** A channel identity as a read API shows it: without its credential keys. */
export function withoutCredentials(identity: unknown): unknown {
  if (identity === null || typeof identity !== 'object' || Array.isArray(identity)) return identity;
  return Object.fromEntries(Object.entries(identity).filter(([key]) => !IDENTITY_CREDENTIAL_KEYS.has(key)));
}

import { FieldError, HeraldError, InboxBulkUpdated, MAX_ID_LENGTH } from '@herald/contracts';
import { MAX_USER_TOKEN_LENGTH } from '@herald/runtime';

/**
 * What `@suprsend/web-sdk` 4.x's feed socket hears, and what it sends to connect. Pure:
 * FeedSockets (http/feed-sockets.ts) hosts it on socket.io.
 *
 * The SDK reads only `n_id` of `new_notification` and `notification_update` (it then
 * fetches the message, and for an update the counts, over the feed API); of
 * `bulk_notification_update` the `action` and `notification_ids` (`'all'` with `read`:
 * every message read and every count 0; the ids with `seen`); `reset_badge` has no payload.
 */
export type FeedSocketEvent =
  | { readonly name: 'new_notification' | 'notification_update'; readonly payload: { readonly n_id: string } }
  | { readonly name: 'bulk_notification_update'; readonly payload: { readonly action: 'read'; readonly notification_ids: 'all' } | { readonly action: 'seen'; readonly notification_ids: readonly string[] } }
  | { readonly name: 'reset_badge'; readonly payload: Record<string, never> };

/** A message stored (`item`) or changed (`update`), as InboxStreams hands it to a sink; nothing for its `ping`. */
export function feedEventOfItem(streamEvent: string, item: { readonly id: string }): FeedSocketEvent | undefined {
  if (streamEvent === 'item') return { name: 'new_notification', payload: { n_id: item.id } };
  if (streamEvent === 'update') return { name: 'notification_update', payload: { n_id: item.id } };
  return undefined;
}

export function feedEventOfBulk(update: InboxBulkUpdated): FeedSocketEvent {
  switch (update.change) {
    case 'all_read':
      return { name: 'bulk_notification_update', payload: { action: 'read', notification_ids: 'all' } };
    case 'seen':
      return { name: 'bulk_notification_update', payload: { action: 'seen', notification_ids: update.notification_ids ?? [] } };
    case 'badge_reset':
      return { name: 'reset_badge', payload: {} };
  }
}

/** The SDK's connect payload (`auth`): `authorization` (public key), `x-ss-signature` (user token), `distinct_id`, `tenant_id`. */
export interface FeedSocketCredential {
  readonly publicKey: string;
  readonly token: string | undefined;
  readonly distinctId: string | undefined;
  readonly tenantId: string | undefined;
}

/** A field the SDK always sends as a string, or absent; anything else is a 400 naming it. */
export function readFeedSocketCredential(auth: unknown): FeedSocketCredential {
  const payload = typeof auth === 'object' && auth !== null && !Array.isArray(auth) ? (auth as Record<string, unknown>) : {};
  const errors: FieldError[] = [];
  const text = (field: string, max: number, required: boolean): string | undefined => {
    const value = payload[field];
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || value === '' || value.length > max) {
      errors.push({ path: `auth.${field}`, message: `must be a string of 1 to ${max} characters` });
      return undefined;
    }
    return value;
  };
  const publicKey = text('authorization', 256, true);
  const token = text('x-ss-signature', MAX_USER_TOKEN_LENGTH, false);
  const distinctId = text('distinct_id', MAX_ID_LENGTH, true);
  const tenantId = text('tenant_id', MAX_ID_LENGTH, false);
  if (errors.length > 0 || publicKey === undefined) throw HeraldError.validation(errors);
  return { publicKey, token, distinctId, tenantId };
}

/** The `connect_error` a refused socket gets: `message` (what the SDK compares) and `data` (Herald's code). */
export interface FeedSocketRefusal {
  readonly message: string;
  readonly data: { readonly error_code: string; readonly detail: string };
}

/**
 * The SDK refreshes the user token (`refreshUserToken`) and connects again when the
 * message is exactly `Authentication Error: wrong auth token` and the token has expired:
 * every refusal of the token says so. A refusal of anything else (the key, the origin,
 * the user, the tenant) names it; so does a limit.
 */
export function feedSocketRefusal(error: unknown): FeedSocketRefusal {
  if (!(error instanceof HeraldError)) return { message: 'Server Error: the connection could not be checked, try again later', data: { error_code: 'internal_error', detail: 'internal error' } };
  const data = { error_code: error.code, detail: error.message };
  switch (error.code) {
    case 'authentication_failed':
      return { message: error.message === 'invalid public key' ? 'Authentication Error: invalid public key' : 'Authentication Error: wrong auth token', data };
    case 'permission_denied':
      return { message: `Authentication Error: ${error.message}`, data };
    case 'validation_error': {
      const fields = error.fieldErrors.map((field) => `${field.path} ${field.message}`).join('; ');
      return { message: `Bad Request: ${fields}`, data: { ...data, detail: fields } };
    }
    default:
      return { message: `${error.code === 'rate_limited' ? 'Too Many Requests' : 'Error'}: ${error.message}`, data };
  }
}

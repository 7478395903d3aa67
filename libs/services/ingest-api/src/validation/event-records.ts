import { FieldError, NormalisedEvent, ParseResult } from '@herald/contracts';
import { MAX_BULK_RECORDS } from './bulk';
import { validateEvent } from './event';
import { NormalisedIdentityEvent, isIdentityEvent, validateIdentityEvent } from './identity-event';

/** docs/sdk-compatibility.md: the SDKs send up to 400 identity events per call (`MAX_IDENTITY_EVENTS_IN_BULK_API`). */
export const MAX_IDENTITY_BULK_RECORDS = 400;

/** One record of `POST /event/`: a track event or an identity event. */
export type EventRecord = { readonly kind: 'track'; readonly event: NormalisedEvent } | { readonly kind: 'identity'; readonly identity: NormalisedIdentityEvent };

/** Validates a record by its kind: a body with `$user_operations` is an identity event, any other a track event. */
export function validateEventRecord(body: unknown): ParseResult<EventRecord> {
  if (isIdentityEvent(body)) {
    const identity = validateIdentityEvent(body);
    return identity.ok ? { ok: true, value: { kind: 'identity', identity: identity.value } } : identity;
  }
  const event = validateEvent(body);
  return event.ok ? { ok: true, value: { kind: 'track', event: event.value } } : event;
}

/**
 * The size rule of an array body, which may mix both kinds: 1 to 400 records, of which
 * at most 100 track events (decisions.md's bulk limit, kept for them). Answers the
 * errors of the whole body, none when it passes.
 */
export function eventBulkSizeErrors(body: readonly unknown[]): FieldError[] {
  if (body.length === 0) return [{ path: '', message: 'must hold at least 1 record' }];
  if (body.length > MAX_IDENTITY_BULK_RECORDS) return [{ path: '', message: `must hold at most ${MAX_IDENTITY_BULK_RECORDS} records (it holds ${body.length})` }];
  const tracks = body.filter((record) => !isIdentityEvent(record)).length;
  if (tracks > MAX_BULK_RECORDS) return [{ path: '', message: `must hold at most ${MAX_BULK_RECORDS} track events (it holds ${tracks})` }];
  return [];
}

import { Envelope, FieldError } from '../envelope';
import { AUDIENCE_APPLIED_TYPE, AUDIENCE_APPLIED_VERSION } from './audience-applied.v1';
import { AUDIENCE_CHANGED_TYPE, AUDIENCE_CHANGED_VERSION } from './audience-changed.v1';
import { BROADCAST_ACCEPTED_TYPE, BROADCAST_ACCEPTED_VERSION } from './broadcast-accepted.v1';
import { CREDENTIALS_APPLIED_TYPE, CREDENTIALS_APPLIED_VERSION } from './credentials-applied.v1';
import { CREDENTIALS_CHANGED_TYPE, CREDENTIALS_CHANGED_VERSION } from './credentials-changed.v1';
import { DEFINITION_APPLIED_TYPE, DEFINITION_APPLIED_VERSION } from './definition-applied.v1';
import { DEFINITION_CHANGED_TYPE, DEFINITION_CHANGED_VERSION } from './definition-changed.v1';
import { DELIVERY_OUTCOME_TYPE, DELIVERY_OUTCOME_VERSION, DELIVERY_OUTCOME_VERSION_2 } from './delivery-outcome.v1';
import { DELIVERY_REQUESTED_TYPE, DELIVERY_REQUESTED_VERSION } from './delivery-requested.v1';
import { EVENT_ACCEPTED_TYPE, EVENT_ACCEPTED_VERSION } from './event-accepted.v1';
import { INBOX_BULK_UPDATED_TYPE, INBOX_BULK_UPDATED_VERSION, INBOX_UPDATED_TYPE, INBOX_UPDATED_VERSION } from './inbox-updated.v1';
import { SUPPRESSION_CHANGED_TYPE, SUPPRESSION_CHANGED_VERSION } from './suppression-changed.v1';
import { MESSAGE_STATUS_TYPE, MESSAGE_STATUS_VERSION } from './message-status.v1';
import { REPLAY_PROGRESSED_TYPE, REPLAY_REQUESTED_TYPE, REPLAY_VERSION } from './replay.v1';
import { RUN_HTTP_REQUESTED_TYPE, RUN_HTTP_REQUESTED_VERSION, TIMER_FIRED_TYPE, TIMER_FIRED_VERSION } from './run-messages.v1';
import { TRIGGER_ACCEPTED_TYPE, TRIGGER_ACCEPTED_VERSION } from './trigger-accepted.v1';
import { TRIGGER_CHUNK_ACCEPTED_TYPE, TRIGGER_CHUNK_ACCEPTED_VERSION } from './trigger-chunk-accepted.v1';
import { WEBPUSH_ENGAGEMENT_TYPE, WEBPUSH_ENGAGEMENT_VERSION } from './webpush-engagement.v1';

/**
 * The `schema_version`s of each internal message type that this build's consumers read,
 * shared by producers (who stamp the `*_VERSION` constant) and consumers (who check
 * against this list). Each lists exactly its current version: a change of a message
 * that old readers cannot read bumps the constant, and a reader that also reads the old
 * shape during a rolling upgrade lists both here. A message of another version is
 * dead-lettered by typed consumers (`unknown_schema_version`), not guessed at.
 */
export const KNOWN_SCHEMA_VERSIONS: Readonly<Record<string, readonly number[]>> = {
  [AUDIENCE_APPLIED_TYPE]: [AUDIENCE_APPLIED_VERSION],
  [AUDIENCE_CHANGED_TYPE]: [AUDIENCE_CHANGED_VERSION],
  [BROADCAST_ACCEPTED_TYPE]: [BROADCAST_ACCEPTED_VERSION],
  [CREDENTIALS_APPLIED_TYPE]: [CREDENTIALS_APPLIED_VERSION],
  [CREDENTIALS_CHANGED_TYPE]: [CREDENTIALS_CHANGED_VERSION],
  [DEFINITION_APPLIED_TYPE]: [DEFINITION_APPLIED_VERSION],
  [DEFINITION_CHANGED_TYPE]: [DEFINITION_CHANGED_VERSION],
  [DELIVERY_OUTCOME_TYPE]: [DELIVERY_OUTCOME_VERSION, DELIVERY_OUTCOME_VERSION_2],
  [DELIVERY_REQUESTED_TYPE]: [DELIVERY_REQUESTED_VERSION],
  [EVENT_ACCEPTED_TYPE]: [EVENT_ACCEPTED_VERSION],
  [INBOX_UPDATED_TYPE]: [INBOX_UPDATED_VERSION],
  [INBOX_BULK_UPDATED_TYPE]: [INBOX_BULK_UPDATED_VERSION],
  [MESSAGE_STATUS_TYPE]: [MESSAGE_STATUS_VERSION],
  [REPLAY_REQUESTED_TYPE]: [REPLAY_VERSION],
  [REPLAY_PROGRESSED_TYPE]: [REPLAY_VERSION],
  [RUN_HTTP_REQUESTED_TYPE]: [RUN_HTTP_REQUESTED_VERSION],
  [SUPPRESSION_CHANGED_TYPE]: [SUPPRESSION_CHANGED_VERSION],
  [TIMER_FIRED_TYPE]: [TIMER_FIRED_VERSION],
  [TRIGGER_ACCEPTED_TYPE]: [TRIGGER_ACCEPTED_VERSION],
  [TRIGGER_CHUNK_ACCEPTED_TYPE]: [TRIGGER_CHUNK_ACCEPTED_VERSION],
  [WEBPUSH_ENGAGEMENT_TYPE]: [WEBPUSH_ENGAGEMENT_VERSION],
};

/**
 * The versions of `type` this build reads. Throws for a type missing from
 * `KNOWN_SCHEMA_VERSIONS`: a consumer of it would otherwise read any version unchecked,
 * so it is a wiring mistake to find at start, not a message to dead-letter.
 */
export function knownSchemaVersions(type: string): readonly number[] {
  const versions = registered(type);
  if (versions === undefined) throw new Error(`message type ${type} has no entry in KNOWN_SCHEMA_VERSIONS (@herald/contracts)`);
  return versions;
}

/**
 * Undefined when a consumer that reads `known` can read this envelope's version; else
 * the field error naming the type, the version and the versions it knows.
 */
export function unknownSchemaVersion(envelope: Pick<Envelope, 'type' | 'schema_version'>, known: readonly number[]): FieldError | undefined {
  if (known.includes(envelope.schema_version)) return undefined;
  return {
    path: 'schema_version',
    message: `${envelope.type} version ${envelope.schema_version} is not known here (known: ${known.join(', ') || 'none'})`,
  };
}

/** Whether this build reads the envelope's version of its type; for consumers that skip what they cannot read. */
export function readsSchemaVersion(envelope: Pick<Envelope, 'type' | 'schema_version'>): boolean {
  return registered(envelope.type)?.includes(envelope.schema_version) ?? false;
}

// Own keys only: a type such as 'constructor' must not find Object.prototype's members.
function registered(type: string): readonly number[] | undefined {
  return Object.prototype.hasOwnProperty.call(KNOWN_SCHEMA_VERSIONS, type) ? KNOWN_SCHEMA_VERSIONS[type] : undefined;
}

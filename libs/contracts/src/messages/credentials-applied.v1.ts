import { ParseResult } from '../envelope';
import { deterministicUuid } from '../ids';
import { EnvelopeMessage, envelopeMessage, envelopeOf } from './envelope-factory';
import { PayloadChecks } from './message-fields';

/**
 * `notify.credentials.applied.v1`: a service's credentials read model now holds these
 * `notify.credentials.changed.v1` announcements (their message ids). Management's key
 * routes answer once every service that checks API keys acknowledged the change, so a
 * key is usable on all of `{base_url}` as soon as its create answers (and refused
 * everywhere as soon as its delete answers).
 */
export const CREDENTIALS_APPLIED_TYPE = 'credentials.applied';
export const CREDENTIALS_APPLIED_VERSION = 1;

export interface CredentialsApplied {
  /** The service whose read model applied the changes: `ingest-api`, `channel-dispatchers`, ... */
  readonly service: string;
  readonly message_ids: readonly string[];
}

/** Most ids one acknowledgement names. */
export const MAX_IDS_PER_CREDENTIALS_APPLIED = 1_000;

export function parseCredentialsApplied(payload: unknown): ParseResult<CredentialsApplied> {
  const checks = PayloadChecks.of(payload);
  checks.string('service');
  checks.stringArray('message_ids', { max: MAX_IDS_PER_CREDENTIALS_APPLIED });
  return checks.errors.length > 0 ? { ok: false, errors: checks.errors } : { ok: true, value: payload as CredentialsApplied };
}

/** The bus message of an acknowledgement, keyed by workspace; its id derives from what it acknowledges. */
export function credentialsAppliedMessage(workspaceId: string, applied: CredentialsApplied, now: Date): EnvelopeMessage {
  const messageId = deterministicUuid('credentials-applied', applied.service, workspaceId, ...applied.message_ids);
  return envelopeMessage(workspaceId, envelopeOf(CREDENTIALS_APPLIED_TYPE, CREDENTIALS_APPLIED_VERSION, messageId, workspaceId, now, applied));
}

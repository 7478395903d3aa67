import { ParseResult } from '../envelope';
import { deterministicUuid } from '../ids';
import { EnvelopeMessage, envelopeMessage, envelopeOf } from './envelope-factory';
import { PayloadChecks } from './message-fields';

/**
 * `notify.audience.applied.v1`: the engine's audience read model now holds these
 * audience changes, so a run started from here on reads them. It names the
 * announcements it applied (`notify.audience.changed.v1` message ids) and the
 * accepted requests they carried out (an identity event's or inline profile's
 * `source_message_id`, named by preference-service's announcement of the result).
 * An audience write (an identity event at ingest-api, a profile, preference, tenant or
 * subscription change at preference-service) answers once its ids are acknowledged, so a
 * trigger sent after the answer sees the write: read-your-writes across the two paths.
 */
export const AUDIENCE_APPLIED_TYPE = 'audience.applied';
export const AUDIENCE_APPLIED_VERSION = 1;

export interface AudienceApplied {
  /** The service whose read model applied the changes (`workflow-engine`). */
  readonly service: string;
  readonly message_ids: readonly string[];
}

/** Most ids one acknowledgement names: a batch's worth, far below the bus's message size. */
export const MAX_IDS_PER_AUDIENCE_APPLIED = 1_000;

export function parseAudienceApplied(payload: unknown): ParseResult<AudienceApplied> {
  const checks = PayloadChecks.of(payload);
  checks.string('service');
  checks.stringArray('message_ids', { max: MAX_IDS_PER_AUDIENCE_APPLIED });
  return checks.errors.length > 0 ? { ok: false, errors: checks.errors } : { ok: true, value: payload as AudienceApplied };
}

/** The bus message of an acknowledgement, keyed by workspace; its id derives from what it acknowledges. */
export function audienceAppliedMessage(workspaceId: string, applied: AudienceApplied, now: Date): EnvelopeMessage {
  const messageId = deterministicUuid('audience-applied', applied.service, workspaceId, ...applied.message_ids);
  return envelopeMessage(workspaceId, envelopeOf(AUDIENCE_APPLIED_TYPE, AUDIENCE_APPLIED_VERSION, messageId, workspaceId, now, applied));
}

import { ParseResult } from '../envelope';
import { PayloadChecks } from './message-fields';
import { InlineChannels, JsonRecord } from './trigger-payload';

/**
 * `notify.audience.changed.v1`, keyed like the recipient it is about. ingest-api
 * publishes `inline_profile` when a trigger carries a recipient's (or actor's)
 * channels and properties inline (interface 2.1.1: "Properties and channels passed
 * inline also update the user profile on trigger"); preference-service applies it to
 * the global profile, or to the per-tenant one when `tenant_id` is set.
 */
export const AUDIENCE_CHANGED_TYPE = 'audience.changed';
export const AUDIENCE_CHANGED_VERSION = 1;

export interface InlineProfileUpdate {
  readonly kind: 'inline_profile';
  readonly workspace_slug: string;
  readonly subject: { readonly type: 'user'; readonly distinct_id: string } | { readonly type: 'object'; readonly object_type: string; readonly id: string };
  /** The per-tenant profile to update (`$context.tenant_id`); absent: the global profile. */
  readonly tenant_id?: string;
  readonly channels: InlineChannels;
  readonly properties: JsonRecord;
  readonly timezone?: string;
  readonly locale?: string;
  /** The trigger that carried it. */
  readonly source_message_id: string;
}

export type AudienceChanged = InlineProfileUpdate;

export function parseAudienceChanged(payload: unknown): ParseResult<AudienceChanged> {
  const checks = PayloadChecks.of(payload);
  checks.oneOf('kind', ['inline_profile']);
  ['workspace_slug', 'source_message_id'].forEach((f) => checks.string(f));
  checks.string('tenant_id', { optional: true });
  checks.object('subject');
  checks.object('channels');
  checks.object('properties');
  return checks.errors.length > 0 ? { ok: false, errors: checks.errors } : { ok: true, value: payload as AudienceChanged };
}

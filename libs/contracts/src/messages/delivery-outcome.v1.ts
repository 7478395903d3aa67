import { ParseResult } from '../envelope';
import { CHANNELS, Channel } from '../channels';
import { PayloadChecks } from './message-fields';

/**
 * `notify.delivery.outcome.v1`, keyed like the run (`workspace:recipient`): what became
 * of a delivery command, reported by channel-dispatchers (and, for `seen`/`clicked`,
 * by the inbox or a vendor callback). The engine records it in the run's log.
 */
export const DELIVERY_OUTCOME_TYPE = 'delivery.outcome';
export const DELIVERY_OUTCOME_VERSION = 1;
/**
 * Version 2 adds the statuses a vendor's status callback reports that version 1 did not
 * have (`bounced`, `complained`). Only outcomes carrying them are stamped 2: a reader of
 * version 1 during a rolling upgrade dead-letters those (unknown_schema_version) rather
 * than misreading them, and reads every other outcome as before.
 */
export const DELIVERY_OUTCOME_VERSION_2 = 2;

/**
 * `retrying` is not final: an attempt failed with a reason that may pass, and the
 * dispatcher tries again at `next_attempt_at` (one per failed attempt, numbered by `attempts`).
 * `delivered`, `seen`, `clicked`, `bounced`, `complained` and `delivery_failure` may also
 * come from a vendor's status callback after `sent_by_vendor` (`bounced`: the vendor gave
 * up on the address; `complained`: the recipient marked it as spam).
 */
export const DELIVERY_STATUSES = ['sent_by_vendor', 'delivered', 'delivery_failure', 'seen', 'clicked', 'retrying', 'bounced', 'complained'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
const VERSION_2_STATUSES: readonly DeliveryStatus[] = ['bounced', 'complained'];

/** The `schema_version` an outcome of `status` is published with (see DELIVERY_OUTCOME_VERSION_2). */
export function deliveryOutcomeVersion(status: DeliveryStatus): number {
  return VERSION_2_STATUSES.includes(status) ? DELIVERY_OUTCOME_VERSION_2 : DELIVERY_OUTCOME_VERSION;
}

export interface DeliveryOutcome {
  readonly delivery_id: string;
  readonly run_id: string;
  readonly message_id: string;
  readonly workspace_slug: string;
  readonly channel: Channel;
  readonly status: DeliveryStatus;
  /** `<channel>/<vendor>` that handled it; for retrying and delivery_failure, the one tried last. */
  readonly vendor?: string;
  readonly vendor_message_id?: string;
  /** For delivery_failure: why, and whether retrying could help. */
  readonly error?: { readonly message: string; readonly retryable: boolean };
  readonly attempts?: number;
  /** For retrying: when the next attempt is due. */
  readonly next_attempt_at?: string;
  /** What went out, but not as written: placeholders the data had no value for. Absent when none. */
  readonly warnings?: readonly DeliveryWarning[];
  /**
   * What the delivery was for, copied from its command, so status readers (webhooks,
   * `notify.status.v1`) filter and report without looking the delivery up.
   */
  readonly workflow_slug?: string;
  readonly template_slug?: string;
  readonly category?: string;
  readonly tenant_id?: string;
  readonly recipient?: { readonly kind: 'user' | 'object'; readonly distinct_id?: string; readonly object_type?: string; readonly id?: string };
  /** For an outcome a vendor's status callback reported: the vendor's own event name (`bounce`, `undelivered`, `read`, ...). */
  readonly vendor_event?: string;
  readonly at: string;
}

export const DELIVERY_WARNING_CODES = ['missing_variable', 'missing_translation'] as const;

/**
 * A template that rendered, but not as written (a non-strict template): `field` is the
 * content field (`subject`, `blocks[2]`), `variable` the placeholder the data had no
 * value for (it rendered empty), `key` the translation key no locale had (it rendered as
 * the key).
 */
export type DeliveryWarning =
  | { readonly code: 'missing_variable'; readonly field: string; readonly variable: string }
  | { readonly code: 'missing_translation'; readonly field: string; readonly key: string };

export function parseDeliveryOutcome(payload: unknown): ParseResult<DeliveryOutcome> {
  const checks = PayloadChecks.of(payload);
  ['delivery_id', 'run_id', 'message_id', 'workspace_slug', 'at'].forEach((f) => checks.string(f));
  checks.oneOf('channel', CHANNELS);
  checks.oneOf('status', DELIVERY_STATUSES);
  checks.string('vendor', { optional: true });
  checks.object('error', { optional: true });
  checks.string('vendor_event', { optional: true });
  const warnings = (payload as { warnings?: unknown } | null)?.warnings;
  const isWarning = (item: unknown): boolean =>
    typeof item === 'object' && item !== null && (DELIVERY_WARNING_CODES as readonly unknown[]).includes((item as { code?: unknown }).code) && typeof (item as { field?: unknown }).field === 'string';
  if (warnings !== undefined && !(Array.isArray(warnings) && warnings.every(isWarning))) {
    checks.errors.push({ path: 'payload.warnings', message: `must be an array of warnings, each with a code (${DELIVERY_WARNING_CODES.join(', ')}) and a field` });
  }
  return checks.errors.length > 0 ? { ok: false, errors: checks.errors } : { ok: true, value: payload as DeliveryOutcome };
}

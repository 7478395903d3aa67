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
 * `retrying` is not final: an attempt failed with a reason that may pass, and the
 * dispatcher tries again at `next_attempt_at` (one per failed attempt, numbered by `attempts`).
 */
export const DELIVERY_STATUSES = ['sent_by_vendor', 'delivered', 'delivery_failure', 'seen', 'clicked', 'retrying'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryOutcome {
  readonly delivery_id: string;
  readonly run_id: string;
  readonly message_id: string;
  readonly workspace_slug: string;
  readonly channel: Channel;
  readonly status: DeliveryStatus;
  /** `<channel>/<vendor>` that handled it, when one did. */
  readonly vendor?: string;
  readonly vendor_message_id?: string;
  /** For delivery_failure: why, and whether retrying could help. */
  readonly error?: { readonly message: string; readonly retryable: boolean };
  readonly attempts?: number;
  /** For retrying: when the next attempt is due. */
  readonly next_attempt_at?: string;
  readonly at: string;
}

export function parseDeliveryOutcome(payload: unknown): ParseResult<DeliveryOutcome> {
  const checks = PayloadChecks.of(payload);
  ['delivery_id', 'run_id', 'message_id', 'workspace_slug', 'at'].forEach((f) => checks.string(f));
  checks.oneOf('channel', CHANNELS);
  checks.oneOf('status', DELIVERY_STATUSES);
  checks.string('vendor', { optional: true });
  checks.object('error', { optional: true });
  return checks.errors.length > 0 ? { ok: false, errors: checks.errors } : { ok: true, value: payload as DeliveryOutcome };
}

import { randomUUID } from 'node:crypto';
import { ParseResult } from '../envelope';
import { CHANNELS, Channel } from '../channels';
import { TOPICS } from '../topics';
import { EnvelopeOutboxMessage, envelopeOf, outboxMessageOf } from './envelope-factory';
import { PayloadChecks } from './message-fields';

/**
 * `notify.suppression.changed.v1`, keyed by workspace: an address put on the workspace's
 * suppression list or taken off it. management-api publishes the API's changes and
 * channel-dispatchers the hard bounces and complaints its vendors report; both keep the
 * list from this topic in their own schema (management to show it, the dispatchers to
 * skip sends), applying it in topic order so they end up agreeing.
 */
export const SUPPRESSION_CHANGED_TYPE = 'suppression.changed';
export const SUPPRESSION_CHANGED_VERSION = 1;

export const SUPPRESSION_REASONS = ['hard_bounce', 'complaint', 'manual'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

export interface SuppressionChanged {
  readonly workspace_id: string;
  readonly channel: Channel;
  /** The address as sends compare it: an email lower-cased, a phone number as the vendor had it. */
  readonly address: string;
  readonly change: 'added' | 'removed';
  /** For `added`. */
  readonly reason?: SuppressionReason;
  /** What the vendor said (its bounce text), or the API caller's note. */
  readonly detail?: string;
  /** `<channel>/<vendor>` whose callback reported it; absent for the API. */
  readonly vendor?: string;
  readonly at: string;
}

export function parseSuppressionChanged(payload: unknown): ParseResult<SuppressionChanged> {
  const checks = PayloadChecks.of(payload);
  ['workspace_id', 'address', 'at'].forEach((field) => checks.string(field));
  checks.oneOf('channel', CHANNELS);
  checks.oneOf('change', ['added', 'removed']);
  if ((payload as { change?: unknown } | null)?.change === 'added') checks.oneOf('reason', SUPPRESSION_REASONS);
  checks.string('detail', { optional: true });
  checks.string('vendor', { optional: true });
  return checks.errors.length > 0 ? { ok: false, errors: checks.errors } : { ok: true, value: payload as SuppressionChanged };
}

/** The form of an address the list is keyed by: email case does not matter in practice, nor a phone number's spaces. */
export function suppressionAddress(channel: Channel, value: string): string {
  const trimmed = value.trim();
  if (channel === 'email') return trimmed.toLowerCase();
  if (channel === 'sms' || channel === 'whatsapp') return trimmed.replace(/[\s()-]/g, '').replace(/^(\d)/, '+$1');
  return trimmed;
}

/**
 * The outbox row of a change on `notify.suppression.changed.v1`, keyed by workspace so one
 * partition holds a workspace's changes in order (management-api's API changes and the
 * dispatchers' bounces alike).
 */
export function suppressionChangedMessage(change: SuppressionChanged): EnvelopeOutboxMessage {
  const messageId = randomUUID();
  return outboxMessageOf(TOPICS.suppressionChanged.name, change.workspace_id, envelopeOf(SUPPRESSION_CHANGED_TYPE, SUPPRESSION_CHANGED_VERSION, messageId, change.workspace_id, new Date(change.at), change));
}

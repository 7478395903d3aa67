import { DeliveryStatus } from '@herald/contracts';
import { assertNever } from '@herald/decider';
import { DispatchOptions, retryDelayMs } from './dispatch-options';
import { FinalState } from './delivery.repository';
import { OutcomeFields } from './outcome-message';

/** What one destination identity's sends (every vendor of the route by priority) came to. */
export type IdentityResult =
  | { readonly ok: true; readonly vendor: string; readonly vendorMessageId?: string }
  /** `vendor`: the `<channel>/<vendor>` tried last, so a failed message names the vendor that refused it. */
  | { readonly ok: false; readonly retryable: boolean; readonly reason: string; readonly vendor?: string };

/**
 * A vendor's failure as the message log shows it: prefixed with the vendor's name, unless
 * the vendor's own reason starts with it already (`smtp: 421 …`, `sendgrid answered 500: …`),
 * so it reads `smtp: connect …`, never `smtp: smtp: connect …`.
 */
export function vendorFailureReason(vendor: string, reason: string): string {
  const namesItself = reason.startsWith(vendor) && /^[\s:]/.test(reason.slice(vendor.length));
  return namesItself ? reason : `${vendor}: ${reason}`;
}

/** A vendor of the channel's route, in priority order. */
export interface RouteVendor {
  readonly channel: string;
  readonly vendor: string;
}

/** What one vendor answered for one identity. */
export type VendorAnswer = { readonly ok: true; readonly vendorMessageId?: string } | { readonly ok: false; readonly retryable: boolean; readonly reason: string };

/** The next step for one destination identity: call the route's vendor at `route`, or settle on a result. */
export type IdentityStep = { readonly kind: 'call'; readonly route: number } | { readonly kind: 'settled'; readonly result: IdentityResult };

/**
 * The fallback order, decided without I/O: an identity is offered to the route's vendors
 * by priority, the next one whenever one refuses (for any reason: a vendor that rejects an
 * address may not be the only one that would take it), until one takes it or none is left.
 * What the identity came to names the vendor that took it, or every refusal in order with
 * the vendor tried last; it is retryable when any refusal was.
 */
export function decideIdentity(route: readonly RouteVendor[], answers: readonly VendorAnswer[]): IdentityStep {
  const last = answers.at(-1);
  if (last?.ok) {
    const taker = route[answers.length - 1];
    return { kind: 'settled', result: { ok: true, vendor: `${taker.channel}/${taker.vendor}`, vendorMessageId: last.vendorMessageId } };
  }
  if (answers.length < route.length) return { kind: 'call', route: answers.length };
  const refusals = answers.flatMap((answer, index) => (answer.ok ? [] : [vendorFailureReason(route[index].vendor, answer.reason)]));
  const tried = route.at(-1);
  return {
    kind: 'settled',
    result: {
      ok: false,
      retryable: answers.some((answer) => !answer.ok && answer.retryable),
      reason: refusals.length === 0 ? 'no vendor is configured for the channel' : refusals.join('; '),
      ...(tried ? { vendor: `${tried.channel}/${tried.vendor}` } : {}),
    },
  };
}

/** What reached the dispatcher about a delivery; time and jitter come in with it, never from inside. */
export type DeliveryInput =
  /** A command whose claim already existed (a redelivery): `found` is what the ledger said about that claim. */
  | { readonly type: 'command_redelivered'; readonly found: RedeliveryFinding }
  /** The attempt could not send at all: the content does not render, no vendor, no identity, attachments missing. */
  | { readonly type: 'unsendable'; readonly reason: string }
  /** A claim of a dead owner whose vendors may have been called already, and not every vendor dedupes. */
  | { readonly type: 'abandoned_without_dedupe' }
  /** The attempt sent to the identities not sent before; `results` has one entry per identity tried now. */
  | { readonly type: 'sends_completed'; readonly results: readonly IdentityResult[]; readonly jitter: number };

export type RedeliveryFinding = { readonly kind: 'taken' } | { readonly kind: 'held'; readonly leaseLeftMs: number } | { readonly kind: 'settled' };

/** The ledger's view of the delivery at this attempt, and the retry policy that governs it. */
export interface DeliveryState {
  readonly channel: string;
  /** This attempt's number, from 1. */
  readonly attempts: number;
  /** How many identities earlier attempts sent to. */
  readonly sentBefore: number;
  readonly policy: Pick<DispatchOptions, 'maxAttempts' | 'initialRetryDelayMs' | 'maxRetryDelayMs'>;
}

export type DeliveryDecision =
  /** Record the final state and publish the outcome, in one transaction. */
  | { readonly kind: 'record'; readonly final: FinalState; readonly outcome: OutcomeFields }
  /** Try again after `delayMs`; `report` is the informative `retrying` outcome. */
  | { readonly kind: 'retry'; readonly delayMs: number; readonly reason: string; readonly report: OutcomeFields }
  /** A redelivered command whose claim a dead owner left: attempt it again, as abandoned. */
  | { readonly kind: 'resume_abandoned' }
  /** A redelivered command already handled or in flight elsewhere: acknowledge, send nothing. */
  | { readonly kind: 'acknowledge'; readonly recheckInMs?: number };

/**
 * The dispatcher's decisions about one delivery, free of I/O: the adapter (Dispatcher)
 * gathers what happened (the vendor calls, the ledger's claim), and this says what to
 * record. A retryable failure is retried with backoff until `maxAttempts`; a delivery
 * that reached any identity is reported sent (the recipient got it), with the other
 * identities' failures kept as its error.
 */
export function decideDelivery(input: DeliveryInput, state: DeliveryState, now: Date): DeliveryDecision {
  switch (input.type) {
    case 'command_redelivered':
      return redelivered(input.found);
    case 'unsendable':
      return failed(state, input.reason, false);
    case 'abandoned_without_dedupe':
      return failed(state, 'outcome unknown: the dispatcher stopped between calling the vendor and recording the result; not repeated to avoid a duplicate', false);
    case 'sends_completed':
      return sendsCompleted(input, state, now);
    default:
      return assertNever(input);
  }
}

function redelivered(found: RedeliveryFinding): DeliveryDecision {
  switch (found.kind) {
    case 'taken':
      return { kind: 'resume_abandoned' };
    case 'held':
      // Should its live owner die, the sweep resolves the claim once the lease runs out: look then.
      return { kind: 'acknowledge', recheckInMs: found.leaseLeftMs + 50 };
    case 'settled':
      return { kind: 'acknowledge' };
    default:
      return assertNever(found);
  }
}

function sendsCompleted(input: Extract<DeliveryInput, { type: 'sends_completed' }>, state: DeliveryState, now: Date): DeliveryDecision {
  const sentNow = input.results.filter((result): result is Extract<IdentityResult, { ok: true }> => result.ok);
  const failures = input.results.filter((result): result is Extract<IdentityResult, { ok: false }> => !result.ok);
  const lastSent = sentNow.at(-1);
  if (failures.length === 0) return succeeded(state, lastSent);
  const reason = failures.map((failure) => failure.reason).join('; ');
  const canRetry = failures.some((failure) => failure.retryable);
  // The vendor tried last for the last identity that failed: the message log names it, sent or not.
  const tried = failures.at(-1)?.vendor;
  if (canRetry && state.attempts < state.policy.maxAttempts) {
    const delayMs = retryDelayMs(state.policy, state.attempts, input.jitter);
    const report: OutcomeFields = {
      status: 'retrying',
      attempts: state.attempts,
      next_attempt_at: new Date(now.getTime() + delayMs).toISOString(),
      error: { message: reason, retryable: true },
      ...(tried ? { vendor: tried } : {}),
    };
    return { kind: 'retry', delayMs, reason, report };
  }
  // Some identities got it: the message reached the recipient, so report it sent.
  if (sentNow.length > 0 || state.sentBefore > 0) return succeeded(state, lastSent, reason);
  return failed(state, reason, canRetry, tried);
}

function succeeded(state: DeliveryState, result: Extract<IdentityResult, { ok: true }> | undefined, partialFailure?: string): DeliveryDecision {
  // Storing in the inbox is delivery itself; a vendor's acceptance is only "sent by vendor".
  const status: DeliveryStatus = state.channel === 'inbox' ? 'delivered' : 'sent_by_vendor';
  return {
    kind: 'record',
    final: { status: 'sent', vendor: result?.vendor, vendorMessageId: result?.vendorMessageId, error: partialFailure },
    outcome: { status, vendor: result?.vendor, vendor_message_id: result?.vendorMessageId, attempts: state.attempts },
  };
}

function failed(state: DeliveryState, reason: string, wasRetryable: boolean, tried?: string): DeliveryDecision {
  return {
    kind: 'record',
    final: { status: 'failed', error: reason },
    outcome: { status: 'delivery_failure', error: { message: reason, retryable: wasRetryable }, attempts: state.attempts, ...(tried ? { vendor: tried } : {}) },
  };
}

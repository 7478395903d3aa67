import { ParseResult } from '../envelope';
import { PayloadChecks } from './message-fields';

/**
 * The engine's messages to itself, keyed like the run (`workspace:recipient`) so they
 * come back to the consumer of that recipient: a durable timer that came due
 * (`notify.timer.fired.v1`, published by the timer poller), and an HTTP request of a
 * webhook or fetch node (`notify.run.http_requested.v1`, published through the outbox
 * after the run recorded it, so a crash never loses or invents one).
 */
export const TIMER_FIRED_TYPE = 'run.timer_fired';
export const TIMER_FIRED_VERSION = 1;

export interface TimerFiredMessage {
  readonly run_id: string;
  readonly stream_id: string;
  readonly timer_id: string;
  readonly due_at: string;
}

export function parseTimerFired(payload: unknown): ParseResult<TimerFiredMessage> {
  const checks = PayloadChecks.of(payload);
  ['run_id', 'stream_id', 'timer_id', 'due_at'].forEach((f) => checks.string(f));
  return checks.errors.length > 0 ? { ok: false, errors: checks.errors } : { ok: true, value: payload as TimerFiredMessage };
}

export const RUN_HTTP_REQUESTED_TYPE = 'run.http_requested';
export const RUN_HTTP_REQUESTED_VERSION = 1;

export interface RunHttpRequest {
  readonly request_id: string;
  readonly method: string;
  readonly url: string;
  readonly headers: readonly { readonly key: string; readonly value: string }[];
  readonly query: readonly { readonly key: string; readonly value: string }[];
  readonly body?: unknown;
  readonly body_content_type?: string;
  readonly timeout_ms: number;
}

export interface RunHttpRequestedMessage {
  readonly run_id: string;
  readonly stream_id: string;
  readonly request: RunHttpRequest;
}

export function parseRunHttpRequested(payload: unknown): ParseResult<RunHttpRequestedMessage> {
  const checks = PayloadChecks.of(payload);
  ['run_id', 'stream_id'].forEach((f) => checks.string(f));
  checks.object('request');
  const value = payload as RunHttpRequestedMessage;
  if (checks.errors.length === 0 && (typeof value.request.url !== 'string' || typeof value.request.method !== 'string')) {
    checks.errors.push({ path: 'payload.request', message: 'must have a method and a url' });
  }
  return checks.errors.length > 0 ? { ok: false, errors: checks.errors } : { ok: true, value };
}

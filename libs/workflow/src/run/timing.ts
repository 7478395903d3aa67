import { DURATION_EXAMPLE, DelayNode, DelayProperties, RelativeTo, parseDuration } from '../definition';
import { assertNever } from '@herald/decider';
import { MAX_INSTANT_MS, asInstant, asNumber } from './comparison';
import { Result, fail, jqFirst, ok, quote } from './evaluate';
import { RunExpressions } from './ports';
import { RunScope } from './run-scope';

/**
 * When a delay node is due. A fixed duration counts from now; a dynamic one is a jq
 * expression yielding a duration (`1h30m`) or a number of seconds; `relative_to` is a
 * jq timestamp (ISO 8601 text or epoch seconds) moved before or after by a fixed or jq
 * offset. The caller fires a due time that has already passed at once.
 */
export function delayDueAt(node: DelayNode, scope: RunScope, expressions: RunExpressions, now: Date): Result<number> {
  switch (node.delay_type) {
    case 'fixed':
      return after(now.getTime(), fixedDuration(node.duration, 'duration'));
    case 'dynamic':
      return after(now.getTime(), dynamicDuration(node.duration, 'duration', scope, expressions));
    case 'relative_to':
      return relativeDueAt(node.relative_to, scope, expressions);
    default:
      return assertNever(node);
  }
}

/** When a wait-until node's delay branch is due: the delay node's rules, on `delay_properties`. */
export function waitTimeoutAt(properties: DelayProperties, scope: RunScope, expressions: RunExpressions, now: Date): Result<number> {
  switch (properties.delay_type) {
    case 'fixed':
      return after(now.getTime(), fixedDuration(properties.value, 'delay_properties.value'));
    case 'dynamic':
      return after(now.getTime(), dynamicDuration(properties.value, 'delay_properties.value', scope, expressions));
    case 'relative_to':
      return relativeDueAt(properties.relative_to, scope, expressions);
    default:
      return assertNever(properties);
  }
}

function relativeDueAt(relative: RelativeTo, scope: RunScope, expressions: RunExpressions): Result<number> {
  const pivot = jqFirst(expressions, relative.pivot_expr, scope);
  if (!pivot.ok) return fail(`relative_to.pivot_expr: ${pivot.error}`);
  const pivotMs = asInstant(pivot.value);
  if (pivotMs === undefined) return fail(`relative_to.pivot_expr gave ${quote(pivot.value)}, not a timestamp (ISO 8601 or epoch seconds)`);
  const offset =
    relative.offset_value_type === 'fixed'
      ? fixedDuration(relative.offset_value, 'relative_to.offset_value')
      : dynamicDuration(relative.offset_value, 'relative_to.offset_value', scope, expressions);
  if (!offset.ok) return offset;
  return instant(relative.offset_type === 'after' ? pivotMs + offset.value : pivotMs - offset.value);
}

function fixedDuration(text: string, field: string): Result<number> {
  const ms = parseDuration(text);
  return ms === undefined ? fail(`${field} ${quote(text)} is not a duration like ${DURATION_EXAMPLE}`) : ok(ms);
}

function dynamicDuration(filter: string, field: string, scope: RunScope, expressions: RunExpressions): Result<number> {
  const value = jqFirst(expressions, filter, scope);
  if (!value.ok) return fail(`${field}: ${value.error}`);
  const ms = durationOf(value.value);
  return ms === undefined ? fail(`${field} gave ${quote(value.value)}, not a duration like ${DURATION_EXAMPLE} or a number of seconds`) : ok(ms);
}

/** Milliseconds of a duration text, or of a non-negative number of seconds (number or numeric text). */
export function durationOf(value: unknown): number | undefined {
  const seconds = asNumber(value);
  if (seconds !== undefined) return seconds >= 0 && Number.isSafeInteger(Math.round(seconds * 1000)) ? Math.round(seconds * 1000) : undefined;
  return typeof value === 'string' ? parseDuration(value) : undefined;
}

function after(startMs: number, duration: Result<number>): Result<number> {
  return duration.ok ? instant(startMs + duration.value) : duration;
}

function instant(ms: number): Result<number> {
  const problem = dueTimeProblem(ms);
  return problem === undefined ? ok(ms) : fail(`the due time ${problem}`);
}

/**
 * The latest instant a timer can be due at, 9999-12-31T23:59:59.999Z. A timer is stored
 * as a Postgres timestamptz from its ISO 8601 text, and JavaScript writes a later year
 * with a sign and six digits (`+010000-01-01T…`), which Postgres refuses: a later due
 * time decided as a timer could never be stored, so the run fails with the reason instead.
 */
export const LATEST_DUE_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Why `ms` cannot be a timer's due time (`is out of range: …`), or undefined when it can. Times long past fire at once, without a timer. */
export function dueTimeProblem(ms: number): string | undefined {
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_INSTANT_MS) return 'is out of range';
  if (ms > LATEST_DUE_MS) return `${new Date(ms).toISOString()} is out of range: a timer can be due at ${new Date(LATEST_DUE_MS).toISOString()} at the latest`;
  return undefined;
}

import { DURATION_EXAMPLE, OffsetType, OffsetValueType, parseDuration } from '../definition';
import { asInstant } from '../run/comparison';
import { Result, fail, ok, quote } from '../run/evaluate';
import { dueTimeProblem, durationOf } from '../run/timing';

/**
 * A batch node's window (interface 2.3) with its jq parts already evaluated by the
 * caller, which keeps this computation pure:
 *
 * - `fixed`: the node's fixed_window duration;
 * - `dynamic`: what dynamic_window_expr gave, a duration (`1h30m`) or a number of seconds;
 * - `relative_to`: what pivot_expr gave (ISO 8601 text or epoch seconds), and the offset:
 *   the node's fixed duration, or what the offset's jq gave.
 */
export type EvaluatedBatchWindow =
  | { readonly window_type: 'fixed'; readonly fixed_window: string }
  | { readonly window_type: 'dynamic'; readonly window: unknown }
  | {
      readonly window_type: 'relative_to';
      readonly pivot: unknown;
      readonly offset_type: OffsetType;
      readonly offset_value_type: OffsetValueType;
      readonly offset: unknown;
    };

/**
 * When a batch opened at `openedAt` (its first event) closes. The rules are the delay
 * node's (run/timing.ts): fixed and dynamic windows count from the opening, a
 * relative_to window ends at the pivot moved before or after by the offset. An end that
 * has already passed closes the batch at once; that is the caller's to do.
 */
export function batchWindowEnd(window: EvaluatedBatchWindow, openedAt: Date): Result<Date> {
  switch (window.window_type) {
    case 'fixed': {
      const ms = parseDuration(window.fixed_window);
      return ms === undefined ? fail(`fixed_window ${quote(window.fixed_window)} is not a duration like ${DURATION_EXAMPLE}`) : instant(openedAt.getTime() + ms);
    }
    case 'dynamic': {
      const ms = durationOf(window.window);
      return ms === undefined ? fail(`dynamic_window_expr gave ${quote(window.window)}, not a duration like ${DURATION_EXAMPLE} or a number of seconds`) : instant(openedAt.getTime() + ms);
    }
    case 'relative_to':
      return relativeEnd(window);
  }
}

function relativeEnd(window: Extract<EvaluatedBatchWindow, { window_type: 'relative_to' }>): Result<Date> {
  const pivot = asInstant(window.pivot);
  if (pivot === undefined) return fail(`relative_to.pivot_expr gave ${quote(window.pivot)}, not a timestamp (ISO 8601 or epoch seconds)`);
  const offset = offsetOf(window);
  if (!offset.ok) return offset;
  return instant(window.offset_type === 'after' ? pivot + offset.value : pivot - offset.value);
}

/** A fixed offset is written as a duration; a dynamic one may also be seconds, as in delay nodes. */
function offsetOf(window: Extract<EvaluatedBatchWindow, { window_type: 'relative_to' }>): Result<number> {
  if (window.offset_value_type === 'dynamic') {
    const ms = durationOf(window.offset);
    return ms === undefined ? fail(`relative_to.offset_value gave ${quote(window.offset)}, not a duration like ${DURATION_EXAMPLE} or a number of seconds`) : ok(ms);
  }
  const ms = typeof window.offset === 'string' ? parseDuration(window.offset) : undefined;
  return ms === undefined ? fail(`relative_to.offset_value ${quote(window.offset)} is not a duration like ${DURATION_EXAMPLE}`) : ok(ms);
}

/** The window's end, which the batch's owner waits for under a timer: a time a timer can be due at. */
function instant(ms: number): Result<Date> {
  const problem = dueTimeProblem(ms);
  return problem === undefined ? ok(new Date(ms)) : fail(`the batch window's end ${problem}`);
}

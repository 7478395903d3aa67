import { JsonRecord } from '@herald/contracts';
import { BatchNode, DEFAULT_DIGEST_RETAIN_COUNT, DigestNode, DigestSchedule } from '../definition';
import { assertNever } from '@herald/decider';
import { EvaluatedBatchWindow, batchWindowEnd } from '../schedule/batch-window';
import { CategoryDigestSchedule, categoryDigestSchedule } from '../schedule/category-digest-schedule';
import { digestZone } from '../schedule/digest-zone';
import { dynamicDigestSchedule } from '../schedule/dynamic-schedule';
import { nextDigestTime } from '../schedule/next-digest-time';
import { isRecord } from './comparison';
import { Result, fail, jqFirst, ok, quote } from './evaluate';
import { RunExpressions } from './ports';
import { PreferenceSnapshot } from './run-context';
import { AccumulationRequest } from './run-events';
import { RunScope } from './run-scope';
import { dueTimeProblem } from './timing';

/**
 * What a batch node asks of its accumulator: its batch key, and the window a batch it
 * opens would have, counted from now (the window of a batch the run only joins is the
 * opener's, never extended). retain_count defaults to 10 for batches as for digests.
 */
export function batchRequest(node: BatchNode, data: JsonRecord, scope: RunScope, expressions: RunExpressions, now: Date): Result<AccumulationRequest> {
  const key = node.batch_key === undefined ? ok('') : batchKey(node.batch_key, scope, expressions);
  if (!key.ok) return key;
  const window = evaluatedWindow(node, scope, expressions);
  if (!window.ok) return window;
  const end = batchWindowEnd(window.value, now);
  if (!end.ok) return end;
  return ok({
    node_type: 'batch',
    key: key.value,
    closes_at: end.value.toISOString(),
    mode: node.mode,
    retain_count: node.retain_count ?? DEFAULT_DIGEST_RETAIN_COUNT,
    retain_order: node.retain_order ?? 'first',
    data,
  });
}

/** The key as text: a string as is, other JSON as its JSON text (so `1` and `"1"` differ only if the author makes them). */
function batchKey(filter: string, scope: RunScope, expressions: RunExpressions): Result<string> {
  const value = jqFirst(expressions, filter, scope);
  if (!value.ok) return fail(`batch_key: ${value.error}`);
  if (value.value === null) return ok('');
  return ok(typeof value.value === 'string' ? value.value : JSON.stringify(value.value));
}

function evaluatedWindow(node: BatchNode, scope: RunScope, expressions: RunExpressions): Result<EvaluatedBatchWindow> {
  switch (node.window_type) {
    case 'fixed':
      return ok({ window_type: 'fixed', fixed_window: node.fixed_window });
    case 'dynamic': {
      const window = jqFirst(expressions, node.dynamic_window_expr, scope);
      return window.ok ? ok({ window_type: 'dynamic', window: window.value }) : fail(`dynamic_window_expr: ${window.error}`);
    }
    case 'relative_to': {
      const relative = node.relative_to;
      const pivot = jqFirst(expressions, relative.pivot_expr, scope);
      if (!pivot.ok) return fail(`relative_to.pivot_expr: ${pivot.error}`);
      const offset = relative.offset_value_type === 'fixed' ? ok<unknown>(relative.offset_value) : jqFirst(expressions, relative.offset_value, scope);
      if (!offset.ok) return fail(`relative_to.offset_value: ${offset.error}`);
      return ok({ window_type: 'relative_to', pivot: pivot.value, offset_type: relative.offset_type, offset_value_type: relative.offset_value_type, offset: offset.value });
    }
    default:
      return assertNever(node);
  }
}

/**
 * What a digest node asks of its accumulator: one digest per recipient and node, which
 * closes at the schedule's next time after now, read in the schedule's zone (the
 * recipient's `$timezone` or a fixed one). A digest sends everything it accumulated.
 */
export function digestRequest(
  node: DigestNode,
  data: JsonRecord,
  scope: RunScope,
  expressions: RunExpressions,
  preferences: PreferenceSnapshot,
  now: Date,
): Result<AccumulationRequest> {
  const schedule = digestSchedule(node, scope, expressions, preferences);
  if (!schedule.ok) return schedule;
  const zone = digestZone(schedule.value, scope.recipient.$timezone);
  const next = nextDigestTime(schedule.value, zone, now);
  if (next === undefined) return fail(`the digest schedule ${quote(schedule.value)} has no next time after ${now.toISOString()} in ${zone}`);
  // The digest closes under a timer (its owner's), so its next time must be one a timer can be due at.
  const problem = dueTimeProblem(next.getTime());
  if (problem !== undefined) return fail(`the digest schedule's next time ${problem}`);
  return ok({
    node_type: 'digest',
    key: '',
    closes_at: next.toISOString(),
    mode: 'accumulate_all',
    retain_count: node.retain_count ?? DEFAULT_DIGEST_RETAIN_COUNT,
    retain_order: node.retain_order ?? 'first',
    data,
  });
}

function digestSchedule(node: DigestNode, scope: RunScope, expressions: RunExpressions, preferences: PreferenceSnapshot): Result<DigestSchedule> {
  switch (node.schedule_type) {
    case 'static':
      return ok(node.schedule);
    case 'dynamic': {
      const value = jqFirst(expressions, node.dynamic_schedule_expr, scope);
      return value.ok ? dynamicDigestSchedule(value.value) : fail(`dynamic_schedule_expr: ${value.error}`);
    }
    case 'category_digest_schedule': {
      const chosen = categorySchedule(preferences);
      return chosen.ok ? ok(chosen.value.schedule) : chosen;
    }
    default:
      return assertNever(node);
  }
}

/** The snapshot is libs/audience's (the host builds it); one without a category object has no schedule to offer. */
function categorySchedule(preferences: PreferenceSnapshot): Result<CategoryDigestSchedule> {
  if (!('category' in preferences) || (preferences.category !== null && !isRecord(preferences.category))) {
    return fail('the preference snapshot carries no notification category to take a digest schedule from');
  }
  return categoryDigestSchedule(preferences as unknown as Parameters<typeof categoryDigestSchedule>[0]);
}

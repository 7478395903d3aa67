import { FieldError, HeraldError } from '@herald/contracts';
import { BroadcastCancelFilters, CancelFilters } from './request-bodies';
import { RunFilter } from './run-index.repository';

/** Cross-field rule of `POST /v1/workflow_run/cancel/` (reference `cancel-workflow`); the fields are checked by its schema. */
export function requireCancelFilter(filters: CancelFilters): CancelFilters {
  if (filters.execution_id === undefined && filters.idempotency_key === undefined && !filters.recipients?.length) {
    throw new HeraldError('validation_error', 'at least one filter is required: execution_id, recipients, idempotency_key', [], 'short');
  }
  return filters;
}

/** Cross-field rule of `POST /v1/broadcast_run/cancel/` (reference `cancel-broadcast`). */
export function requireBroadcastCancelFilter(filters: BroadcastCancelFilters): BroadcastCancelFilters {
  if (filters.execution_id === undefined && filters.list_id === undefined && filters.idempotency_key === undefined) {
    throw new HeraldError('validation_error', 'at least one filter is required: execution_id, list_id, idempotency_key', [], 'short');
  }
  return filters;
}

const DEFAULT_RUN_LIMIT = 100;
const MAX_RUN_LIMIT = 1000;
const RUN_STATUSES: readonly string[] = ['running', 'completed', 'failed', 'discarded', 'cancelled'];

/** The query of `GET /v1/workflow_run/` (following a trigger) as a filter and a page size; every wrong parameter by name. */
export function parseRunFilter(query: Record<string, unknown>): { filter: RunFilter; limit: number } {
  const errors: FieldError[] = [];
  const limit = query.limit === undefined ? DEFAULT_RUN_LIMIT : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RUN_LIMIT) errors.push({ path: 'limit', message: `must be an integer from 1 to ${MAX_RUN_LIMIT}` });
  const filter: { -readonly [K in keyof RunFilter]: RunFilter[K] } = {};
  for (const [param, property] of [
    ['message_id', 'messageId'],
    ['idempotency_key', 'idempotencyKey'],
    ['workflow_slug', 'workflowSlug'],
    ['recipient_id', 'distinctId'],
    ['status', 'status'],
  ] as const) {
    const value = query[param];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '') errors.push({ path: param, message: 'must be one non-empty value' });
    else if (param === 'status' && !RUN_STATUSES.includes(value)) errors.push({ path: param, message: `unknown status ${value}: must be one of ${RUN_STATUSES.join(', ')}` });
    else filter[property] = value;
  }
  if (errors.length > 0) throw HeraldError.validation(errors);
  return { filter, limit };
}

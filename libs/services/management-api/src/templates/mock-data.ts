import { FieldError, JsonRecord } from '@herald/contracts';

export interface ObjectRef {
  readonly object_type: string;
  readonly id: string;
}

/** A template's sample input for previews (the reference's `mock_data`). */
export interface MockData {
  readonly payload: JsonRecord;
  readonly tenant_id: string | null;
  readonly is_batch: boolean;
  readonly batch_count: number;
  readonly recipient_sub_type: 'user' | 'object';
  readonly recipient_object: ObjectRef | null;
  readonly recipient_distinct_id: string | null;
  readonly actor_sub_type: 'user' | 'object';
  readonly actor_object: ObjectRef | null;
  readonly actor_distinct_id: string | null;
}

export const DEFAULT_MOCK_DATA: MockData = {
  payload: {},
  tenant_id: null,
  is_batch: false,
  batch_count: 2,
  recipient_sub_type: 'user',
  recipient_object: null,
  recipient_distinct_id: null,
  actor_sub_type: 'user',
  actor_object: null,
  actor_distinct_id: null,
};

/** Digests of more events than this are not worth previewing, and would make the answer huge. */
export const MAX_BATCH_COUNT = 100;

type Field = keyof MockData;
const SUB_TYPES = ['user', 'object'] as const;

/**
 * A PATCH of mock data: the fields given replace those of `current`, the others stay
 * (null clears a nullable one). Every invalid field is reported by its path.
 */
export function updateMockData(current: MockData, body: unknown): { ok: true; data: MockData } | { ok: false; errors: FieldError[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, errors: [{ path: '', message: 'the body must be a JSON object' }] };
  const errors: FieldError[] = [];
  const next: Record<string, unknown> = { ...current };
  for (const [field, value] of Object.entries(body as Record<string, unknown>)) {
    const problem = fieldProblem(field, value);
    if (problem) errors.push({ path: field, message: problem });
    else next[field] = value;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, data: next as unknown as MockData };
}

function fieldProblem(field: string, value: unknown): string | undefined {
  if (!(field in DEFAULT_MOCK_DATA)) return `is not a field of mock data (${Object.keys(DEFAULT_MOCK_DATA).join(', ')})`;
  switch (field as Field) {
    case 'payload':
      return isRecord(value) ? undefined : 'must be a JSON object';
    case 'is_batch':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    case 'batch_count':
      return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_BATCH_COUNT ? undefined : `must be an integer from 1 to ${MAX_BATCH_COUNT}`;
    case 'recipient_sub_type':
    case 'actor_sub_type':
      return SUB_TYPES.includes(value as 'user') ? undefined : `must be one of ${SUB_TYPES.join(', ')}`;
    case 'recipient_object':
    case 'actor_object':
      return value === null || (isRecord(value) && isNonEmpty(value.object_type) && isNonEmpty(value.id)) ? undefined : 'must be null or {object_type, id} with non-empty strings';
    case 'tenant_id':
    case 'recipient_distinct_id':
    case 'actor_distinct_id':
      return value === null || isNonEmpty(value) ? undefined : 'must be null or a non-empty string';
  }
}

/**
 * What a template renders with, as the engine hands it to a dispatcher: the payload's
 * fields at the top, `$recipient` and `$actor`, `$tenant` (and `$brand`), and for a batch the
 * batched events (copies of the payload) with their count. Herald's management API
 * holds no user profiles, so the recipient and actor carry their identity only.
 */
export function transformedData(data: MockData): JsonRecord {
  const transformed: Record<string, unknown> = { ...data.payload };
  const recipient = identityOf(data.recipient_sub_type, data.recipient_distinct_id, data.recipient_object);
  const actor = identityOf(data.actor_sub_type, data.actor_distinct_id, data.actor_object);
  if (recipient) transformed.$recipient = recipient;
  if (actor) transformed.$actor = actor;
  if (data.tenant_id !== null) {
    // `$brand` is the reference's name for the tenant, `$tenant` the interface's.
    transformed.$tenant = { tenant_id: data.tenant_id };
    transformed.$brand = { brand_id: data.tenant_id };
  }
  if (data.is_batch) {
    transformed.$batched_events = Array.from({ length: data.batch_count }, () => data.payload);
    transformed.$batched_events_count = data.batch_count;
  }
  return transformed as JsonRecord;
}

function identityOf(subType: 'user' | 'object', distinctId: string | null, object: ObjectRef | null): JsonRecord | undefined {
  if (subType === 'object') return object ? { object_type: object.object_type, id: object.id } : undefined;
  return distinctId !== null ? { distinct_id: distinctId } : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

import { JsonRecord } from '@herald/contracts';
import { MockDataBody } from './request-bodies';

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

/**
 * A PATCH of mock data, every field checked by its schema (`MockDataBody`): the fields
 * given replace those of `current`, the others stay (null clears a nullable one).
 */
export function updateMockData(current: MockData, update: MockDataBody): MockData {
  return { ...current, ...update };
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

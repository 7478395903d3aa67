import { Type, TSchema } from '@sinclair/typebox';
import { MAX_BULK_RECORDS, MAX_IDENTITY_BULK_RECORDS } from '../validation';
import { BroadcastSchema } from '../validation/broadcast';
import { SdkEventSchema } from '../validation/browser-sdk-event';
import { EventSchema } from '../validation/event';
import { IdentityEventSchema } from '../validation/identity-event';
import { DynamicWorkflowTriggerSchema } from '../validation/legacy-trigger';
import { WorkflowTriggerSchema } from '../validation/trigger';


/** One record (202), or an array of them (bulk, 207), each validated on its own. */
const oneOrBulk = (record: TSchema, max: number): TSchema => Type.Unsafe({ oneOf: [record, Type.Array(record, { minItems: 1, maxItems: max })] });

const eventRecord = Type.Unsafe({ anyOf: [EventSchema, IdentityEventSchema], description: 'A body with `$user_operations` is an identity event' });
const eventBulk = Type.Array(eventRecord, {
  minItems: 1,
  maxItems: MAX_IDENTITY_BULK_RECORDS,
  description: `At most ${MAX_BULK_RECORDS} track events and ${MAX_IDENTITY_BULK_RECORDS} records in all`,
});

/** The request body of each ingest route, built from the schemas its handler's validators compile. */
export const ROUTE_BODIES = {
  trigger: oneOrBulk(WorkflowTriggerSchema, MAX_BULK_RECORDS),
  legacyTrigger: oneOrBulk(DynamicWorkflowTriggerSchema, MAX_BULK_RECORDS),
  broadcast: BroadcastSchema,
  event: Type.Unsafe({ oneOf: [EventSchema, IdentityEventSchema, eventBulk] }),
  sdkEvent: SdkEventSchema,
  sdkBulkEvent: Type.Array(Type.Unsafe({ allOf: [SdkEventSchema, eventRecord] }), { minItems: 1, maxItems: MAX_IDENTITY_BULK_RECORDS, description: eventBulk.description }),
} as const;

import { Static, Type } from '@sinclair/typebox';
import { SchemaKit, StringEnum } from '@herald/contracts';

/**
 * The request bodies of workflow-engine's routes, each one schema (docs/architecture.md,
 * "Contracts"): the handler's `@ValidBody` validates with it and engine-openapi.ts shows it.
 * Rules between fields (at least one filter, each message once) stay in the handler's code.
 */
export const engineSchemas = new SchemaKit({});

const filter = (description?: string) => Type.Optional(Type.String({ minLength: 1, 'x-message': 'must be a non-empty string', ...(description ? { description } : {}) }));

export const CancelFiltersSchema = engineSchemas.named(
  'RunCancelFilters',
  Type.Object(
    {
      execution_id: filter(),
      recipients: Type.Optional(Type.Array(Type.String({ 'x-message': 'must be a string' }), { 'x-message': 'must be an array of strings', description: 'Distinct ids of users' })),
      idempotency_key: filter(),
      workflow_slug: filter(),
    },
    { 'x-message': 'must be a JSON object', description: 'Runs still running that match every given filter; at least one of execution_id, recipients, idempotency_key' },
  ),
);
export type CancelFilters = Static<typeof CancelFiltersSchema>;

export const BroadcastCancelFiltersSchema = engineSchemas.named(
  'BroadcastCancelFilters',
  Type.Object(
    { execution_id: filter("The broadcast's message_id"), list_id: filter(), idempotency_key: filter() },
    { 'x-message': 'must be a JSON object', description: 'Broadcasts matching every given filter; at least one' },
  ),
);
export type BroadcastCancelFilters = Static<typeof BroadcastCancelFiltersSchema>;

/** The reference's actions; Herald applies the ones that are statuses (`read` counts as `seen`). */
export const MESSAGE_ACTIONS = ['seen', 'clicked', 'dismissed', 'read', 'unread', 'archived', 'unarchived'] as const;
export const MAX_BULK_MESSAGES = 1000;

export const BulkMessageUpdateSchema = engineSchemas.named(
  'BulkMessageUpdate',
  Type.Object(
    {
      messages: Type.Array(
        Type.Object(
          {
            message_id: Type.String({ minLength: 1, 'x-message': 'must be a message id' }),
            action: StringEnum(MESSAGE_ACTIONS, { description: 'dismissed, unread, archived and unarchived answer 400 in their record: not supported' }),
          },
          { 'x-message': 'must be an object {message_id, action}' },
        ),
        { minItems: 1, maxItems: MAX_BULK_MESSAGES, 'x-message': `must be an array of 1 to ${MAX_BULK_MESSAGES} {message_id, action}`, description: 'Each message_id once' },
      ),
    },
    { 'x-message': 'must be a JSON object', 'x-required-message': `must be an array of 1 to ${MAX_BULK_MESSAGES} {message_id, action}` },
  ),
);
export type BulkMessageUpdate = Static<typeof BulkMessageUpdateSchema>;

export const ENGINE_BODIES = {
  cancelFilters: engineSchemas.parser(CancelFiltersSchema),
  broadcastCancelFilters: engineSchemas.parser(BroadcastCancelFiltersSchema),
  bulkMessageUpdate: engineSchemas.parser(BulkMessageUpdateSchema),
} as const;

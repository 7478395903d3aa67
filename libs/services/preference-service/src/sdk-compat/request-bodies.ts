import { Static, Type } from '@sinclair/typebox';
import { audienceSchemas, requiredBodyParser } from '../http/audience-schemas';

/**
 * The bodies of the SDK routes `POST /v1/user/{distinct_id}/merge/` and the bulk
 * deletes `DELETE /v1/bulk/user/`, `DELETE /v1/bulk/object/{object_type}/`, each one
 * schema (docs/architecture.md, "Contracts"). A user merged into itself (a rule between
 * the body and the path) and an id named twice stay code.
 */

/** At most this many ids per bulk delete. */
export const MAX_BULK_DELETE_IDS = 1000;

const MERGE_MESSAGE = 'must be the distinct_id of the user to merge into this one';

export const UserMergeSchema = audienceSchemas.named(
  'UserMerge',
  Type.Object(
    { from_user_id: Type.String({ pattern: '\\S', 'x-message': MERGE_MESSAGE, description: 'The user merged into this one, then deleted' }) },
    { 'x-message': 'must be a JSON object', 'x-required-message': MERGE_MESSAGE, description: 'The user merged in' },
  ),
);
export type UserMergeBody = Static<typeof UserMergeSchema>;

const BULK_LIST_MESSAGE = `must be an array of 1 to ${MAX_BULK_DELETE_IDS} ids`;
/** 1 to 1,000 non-blank ids; the whole list is refused with one message when it is not that. */
const ids = (noun: string) =>
  Type.Array(Type.String({ pattern: '\\S', 'x-message': 'must be a non-empty string' }), {
    minItems: 1,
    maxItems: MAX_BULK_DELETE_IDS,
    'x-message': BULK_LIST_MESSAGE,
    description: `1 to 1,000 ${noun}; each deleted once, those that do not exist skipped`,
  });
const bulkOptions = { 'x-message': 'must be a JSON object', 'x-required-message': BULK_LIST_MESSAGE };

export const BulkUserDeleteSchema = audienceSchemas.named('BulkUserDelete', Type.Object({ distinct_ids: ids('distinct_ids') }, bulkOptions));
export type BulkUserDelete = Static<typeof BulkUserDeleteSchema>;

export const BulkObjectDeleteSchema = audienceSchemas.named('BulkObjectDelete', Type.Object({ object_ids: ids('object ids') }, bulkOptions));
export type BulkObjectDelete = Static<typeof BulkObjectDeleteSchema>;

export const SDK_COMPAT_BODIES = {
  merge: requiredBodyParser(UserMergeSchema),
  bulkUserDelete: requiredBodyParser(BulkUserDeleteSchema),
  bulkObjectDelete: requiredBodyParser(BulkObjectDeleteSchema),
} as const;

import { Static, Type } from '@sinclair/typebox';
import { FormattedString, Nullable } from '@herald/contracts';
import { audienceSchemas, requiredBodyParser } from '../http/audience-schemas';

/**
 * The bodies of the subscriber list routes (reference `/v1/subscriber_list/...`), each one
 * schema (docs/architecture.md, "Contracts"). Trimming the list_id and counting each
 * distinct_id once stay code in the list repository.
 */

/** At most this many distinct_ids per add or remove call. */
export const MAX_IDS_PER_CALL = 10_000;

export const ListUpsertSchema = audienceSchemas.named(
  'ListUpsert',
  Type.Object(
    {
      list_id: FormattedString('list_id', { 'x-message': 'must be a non-empty string', description: 'Trimmed; at most 255 characters' }),
      list_name: Nullable(Type.String({ description: 'Absent or null: the list_id when created, else unchanged' })),
      list_description: Nullable(Type.String({ description: 'Absent or null: empty when created, else unchanged' })),
    },
    { 'x-message': 'must be a JSON object', 'x-required-message': 'must be a non-empty string', description: 'The list: created, or renamed and redescribed when it exists' },
  ),
);
export type ListUpsert = Static<typeof ListUpsertSchema>;

export const ListMembersSchema = audienceSchemas.named(
  'ListMembers',
  Type.Object(
    {
      distinct_ids: Type.Array(FormattedString('member_id', { minLength: 1, 'x-message': 'must be a non-empty string' }), {
        'x-message': 'must be an array of distinct_ids',
        // Its own node, so that the count has its own message.
        allOf: [{ maxItems: MAX_IDS_PER_CALL, 'x-message': `must have at most ${MAX_IDS_PER_CALL} entries` }],
        description: 'At most 10,000 distinct_ids; each counts once',
      }),
    },
    { 'x-message': 'must be a JSON object', 'x-required-message': 'must be an array of distinct_ids' },
  ),
);
export type ListMembers = Static<typeof ListMembersSchema>;

export const LIST_BODIES = {
  upsert: requiredBodyParser(ListUpsertSchema),
  members: requiredBodyParser(ListMembersSchema),
} as const;

import { Static, Type } from '@sinclair/typebox';
import { Nullable } from '@herald/contracts';
import { managementSchemas, optionalBody } from '../openapi/management-schemas';

/**
 * The body of a `PATCH .../commit/` of workflows, schemas, translations and categories (and
 * of a workflow's rollback): an optional commit message; no body at all is the same as `{}`.
 */
export const CommitBodySchema = managementSchemas.named(
  'CommitBody',
  Type.Object(
    { commit_message: Nullable(Type.String({ description: 'The query parameter wins' })) },
    { 'x-message': 'the body must be a JSON object', description: 'The body of a PATCH .../commit/ (workflows, schemas, translations, categories) and of a workflow rollback' },
  ),
);
export type CommitBody = Static<typeof CommitBodySchema>;
export const COMMIT_BODY = optionalBody(managementSchemas.parser(CommitBodySchema));

/**
 * The commit message from the query or the body (`{"commit_message": "..."}`), alike for
 * workflows, schemas, translations and categories; the query wins when both are given.
 * Undefined when neither says anything.
 */
export function commitMessageOf(query: string | undefined, body: CommitBody): string | undefined {
  if (query !== undefined) return query.trim() || undefined;
  return body.commit_message?.trim() || undefined;
}

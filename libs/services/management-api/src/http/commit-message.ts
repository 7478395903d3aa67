import { HeraldError } from '@herald/contracts';

/**
 * The commit message of a `PATCH .../commit/`, from the query or a JSON body
 * (`{"commit_message": "..."}`), alike for workflows, templates and categories; the
 * query wins when both are given. Undefined when neither says anything.
 */
export function commitMessageOf(query: string | undefined, body: unknown): string | undefined {
  if (query !== undefined) return query.trim() || undefined;
  if (typeof body !== 'object' || body === null || !('commit_message' in body)) return undefined;
  const value = (body as { commit_message: unknown }).commit_message;
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'string') throw HeraldError.validation([{ path: 'commit_message', message: 'must be a string' }]);
  return value.trim() || undefined;
}

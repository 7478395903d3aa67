import { HeraldError } from '@herald/contracts';

/** The parsed JSON body; a missing one is a 400 naming the body itself. */
export function requiredBody(body: unknown): unknown {
  if (body === undefined || body === null) throw HeraldError.validation([{ path: '', message: 'a JSON body is required' }]);
  return body;
}

/** An optional `tenant_id` query parameter (decisions.md: the tenant query parameter of the preference endpoints). */
export function tenantQuery(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw HeraldError.validation([{ path: 'tenant_id', message: 'must be a string' }]);
  return value;
}

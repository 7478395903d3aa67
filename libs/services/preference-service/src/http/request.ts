import { HeraldError } from '@herald/contracts';

/** An optional `tenant_id` query parameter (decisions.md: the tenant query parameter of the preference endpoints). */
export function tenantQuery(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw HeraldError.validation([{ path: 'tenant_id', message: 'must be a string' }]);
  return value;
}

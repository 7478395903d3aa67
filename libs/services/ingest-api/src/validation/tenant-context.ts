import { FieldError, MAX_ID_LENGTH } from '@herald/contracts';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '' && value.length <= MAX_ID_LENGTH;

/**
 * The one rule of the trigger bodies that spans fields, so no schema says it: each
 * `$context.tenant_id` (of a recipient or the actor) must equal the top-level tenant
 * (decisions.md: a mismatch is a 400 and no run). Read defensively from the raw body, so
 * it is reported together with the schema's errors; a wrong top-level tenant is reported
 * there by the schema and not again at every `$context`.
 */
export function contextTenantErrors(body: unknown, listKey: 'recipients' | 'users', tenantKeys: readonly string[] = ['tenant_id']): FieldError[] {
  if (!isRecord(body)) return [];
  const key = tenantKeys.find((name) => body[name] !== undefined && body[name] !== null);
  const tenant = key === undefined ? undefined : body[key];
  if (tenant !== undefined && !isId(tenant)) return [];
  const errors: FieldError[] = [];
  const check = (holder: unknown, path: string): void => {
    const context = isRecord(holder) ? holder.$context : undefined;
    const contextTenant = isRecord(context) ? context.tenant_id : undefined;
    if (!isId(contextTenant) || contextTenant === tenant) return;
    errors.push({
      path: `${path}.$context.tenant_id`,
      message: tenant === undefined ? 'must equal the top-level tenant_id, which is absent' : 'must equal the top-level tenant_id',
    });
  };
  const list = body[listKey];
  // A plain loop that skips bare distinct_ids at once: this runs on every trigger of the hot path.
  if (Array.isArray(list)) for (let index = 0; index < list.length; index++) if (typeof list[index] === 'object') check(list[index], `${listKey}[${index}]`);
  if (listKey === 'recipients') check(body.actor, 'actor');
  return errors;
}

/**
 * Pure rules of the audit log: which resource a route changes, where its state can be
 * read, and what of a state is never recorded.
 */

/** Parameters that select the resource's parent (a version, a delivery), not the resource itself. */
const SUB_COLLECTIONS = new Set(['versions', 'version', 'delivery']);

export interface AuditedResource {
  /** The resource's kind: the first segment after the API version and workspace (`workflow`, `vendor`, `operator`). */
  readonly type: string;
  /** The route's parameters that name it (the workspace aside). */
  readonly ids: Record<string, string>;
  /** The GET path that reads its current state; absent for changes to a collection (a create). */
  readonly readPath?: string;
}

/**
 * `route` is the route's pattern (`/v1/:workspace/workflow/:slug/commit`), `params` its
 * values. The state is read at the longest prefix of the pattern ending in a parameter
 * (`/v1/:workspace/workflow/:slug`), a version or delivery number aside.
 */
export function auditedResource(route: string, params: Readonly<Record<string, string>>): AuditedResource {
  const segments = route.split('/').filter((segment) => segment !== '');
  const literals = segments.filter((segment, index) => index > 0 && !segment.startsWith(':'));
  const ids = Object.fromEntries(Object.entries(params).filter(([name]) => name !== 'workspace' && name !== '*'));
  let end = -1;
  for (let index = segments.length - 1; index > 0; index -= 1) {
    const segment = segments[index];
    if (segment.startsWith(':') && segment !== ':workspace' && !SUB_COLLECTIONS.has(segments[index - 1])) {
      end = index;
      break;
    }
  }
  const readPath =
    end < 0
      ? undefined
      : `/${segments
          .slice(0, end + 1)
          .map((segment) => (segment.startsWith(':') ? encodeURIComponent(params[segment.slice(1)] ?? '') : segment))
          .join('/')}/`;
  return { type: literals[0] ?? 'unknown', ids, readPath };
}

/** Field names whose values are never recorded (the answers of creates and rotations carry secrets once). */
const SECRET_FIELD = /secret|password|token|private_key|^api_key$|^key_hash$/i;
/** Largest before or after recorded whole; a larger one is replaced by a note of its size. */
export const MAX_RECORDED_BYTES = 256 * 1024;

/** A copy of `value` with every secret field replaced by "[redacted]"; null for nothing. */
export function redacted(value: unknown): object | null {
  if (value === undefined || value === null) return null;
  const copy = redactValue(value);
  const json = JSON.stringify(copy);
  if (json.length > MAX_RECORDED_BYTES) return { truncated: true, bytes: json.length };
  return typeof copy === 'object' && copy !== null ? copy : { value: copy };
}

function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue);
  if (value instanceof Date) return value.toISOString();
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([name, field]) => [
        name,
        SECRET_FIELD.test(name) && field !== null && typeof field !== 'boolean' && !name.startsWith('masked_') ? '[redacted]' : redactValue(field),
      ]),
    );
  }
  return value;
}

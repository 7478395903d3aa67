/** Paths as the validators write them (`recipients[3].$slack[0].email`), resolved against a body. */
export type Segment = string | number;

const SEGMENT = /^(?:\.?([^.[\]]+)|\[(\d+)\])/;

/** The segments of a path, or undefined when it is not one ('' is the root, no segments). */
export function parsePath(path: string): Segment[] | undefined {
  const segments: Segment[] = [];
  let rest = path;
  while (rest !== '') {
    const match = SEGMENT.exec(rest);
    if (match === null || (segments.length === 0 && rest.startsWith('.'))) return undefined;
    segments.push(match[2] !== undefined ? Number(match[2]) : match[1]);
    rest = rest.slice(match[0].length);
  }
  return segments;
}

function child(container: unknown, segment: Segment): { readonly found: boolean; readonly value?: unknown } {
  if (typeof segment === 'number') {
    return Array.isArray(container) && segment < container.length ? { found: true, value: container[segment] } : { found: false };
  }
  if (typeof container !== 'object' || container === null || Array.isArray(container) || !Object.hasOwn(container, segment)) {
    return { found: false };
  }
  return { found: true, value: (container as Record<string, unknown>)[segment] };
}

/** Whether the path names a value in `root`. */
export function locate(root: unknown, segments: readonly Segment[]): { readonly found: boolean; readonly value?: unknown } {
  let current: { found: boolean; value?: unknown } = { found: true, value: root };
  for (const segment of segments) {
    if (!current.found) return current;
    current = child(current.value, segment);
  }
  return current;
}

/** Sets (or with `remove`, deletes) the value at `path` in place; false when the parent is not a container. */
export function setAt(root: unknown, path: string, value: unknown, remove = false): boolean {
  const segments = parsePath(path);
  if (segments === undefined || segments.length === 0) return false;
  const parent = locate(root, segments.slice(0, -1));
  const last = segments[segments.length - 1];
  if (!parent.found) return false;
  if (typeof last === 'number' && Array.isArray(parent.value)) {
    if (remove) parent.value.splice(last, 1);
    else parent.value[last] = value;
    return true;
  }
  if (typeof last === 'string' && typeof parent.value === 'object' && parent.value !== null && !Array.isArray(parent.value)) {
    const record = parent.value as Record<string, unknown>;
    if (remove) delete record[last];
    else Object.defineProperty(record, last, { value, enumerable: true, writable: true, configurable: true });
    return true;
  }
  return false;
}

/** A deep copy of `body` with the changes applied; `REMOVE` deletes the field. */
export const REMOVE = Symbol('remove');

export function withChanges<T>(body: T, changes: Readonly<Record<string, unknown>>): T {
  const copy = structuredClone(body);
  for (const [path, value] of Object.entries(changes)) {
    if (!setAt(copy, path, value, value === REMOVE)) throw new Error(`test setup: cannot set ${path}`);
  }
  return copy;
}

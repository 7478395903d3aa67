import { Issues, fieldPath, itemPath } from './issues';
import { JsonRecord } from '@herald/contracts';
import { StringFormat } from './formats';

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads one value at `path`; returns undefined after reporting when it is wrong. */
export type ItemReader<T> = (value: unknown, path: string, issues: Issues) => T | undefined;

export interface StringRules {
  readonly required?: boolean;
  /** Blank (empty or whitespace only) is an error: identifiers and slugs. */
  readonly nonBlank?: boolean;
  readonly format?: StringFormat;
}

export interface ListRules {
  readonly required?: boolean;
  readonly min?: number;
  readonly max?: number;
  /** What the count message calls one item (`recipient`). */
  readonly noun?: string;
  /**
   * Accept a lone value as a one-item list. The SuprSend SDKs' own request schemas
   * allow `"$email": "a@b.co"` beside `["a@b.co"]`, and SDK bodies must pass here.
   */
  readonly single?: boolean;
}

/** A string checked by `rules`, reported under `path`. */
export function readString(value: unknown, path: string, issues: Issues, rules: StringRules = {}): string | undefined {
  if (typeof value !== 'string') {
    issues.add(path, 'must be a string');
    return undefined;
  }
  if (rules.nonBlank === true && value.trim() === '') {
    issues.add(path, 'must not be empty');
    return undefined;
  }
  if (rules.format !== undefined && !rules.format.test(value)) {
    issues.add(path, rules.format.message);
    return undefined;
  }
  return value;
}

/** An item reader for strings checked by `rules`. */
export function stringItem(rules: StringRules): ItemReader<string> {
  return (value, path, issues) => readString(value, path, issues, rules);
}

/**
 * Reads the fields of one JSON object, each wrong one reported under its path.
 * Null counts as absent: the SDKs send `null` for unset optional fields
 * (`"tenant_id": null`, an attachment's `"url": null`). Only own properties are
 * read, so a key such as `constructor` never resolves to a prototype member.
 */
export class ObjectReader {
  constructor(
    readonly source: JsonRecord,
    readonly path: string,
    readonly issues: Issues,
  ) {}

  /** A reader for `value`, or undefined (reported at `path`) when it is not an object. */
  static of(value: unknown, path: string, issues: Issues): ObjectReader | undefined {
    if (isRecord(value)) return new ObjectReader(value, path, issues);
    issues.add(path, 'must be an object');
    return undefined;
  }

  pathOf(key: string): string {
    return fieldPath(this.path, key);
  }

  report(key: string, message: string): void {
    this.issues.add(this.pathOf(key), message);
  }

  has(key: string): boolean {
    return this.value(key) !== undefined;
  }

  /** The value of a field, or undefined when absent or null; reports `is required` if it must be there. */
  value(key: string, required = false): unknown {
    const value = Object.hasOwn(this.source, key) ? this.source[key] : undefined;
    if (value !== undefined && value !== null) return value;
    if (required) this.report(key, 'is required');
    return undefined;
  }

  string(key: string, rules: StringRules = {}): string | undefined {
    const value = this.value(key, rules.required);
    return value === undefined ? undefined : readString(value, this.pathOf(key), this.issues, rules);
  }

  boolean(key: string): boolean | undefined {
    const value = this.value(key);
    if (value === undefined || typeof value === 'boolean') return value;
    this.report(key, 'must be true or false');
    return undefined;
  }

  object(key: string, required = false): ObjectReader | undefined {
    const value = this.value(key, required);
    return value === undefined ? undefined : ObjectReader.of(value, this.pathOf(key), this.issues);
  }

  /** An array whose items `readItem` reads at `key[i]`; wrong items are reported and left out. */
  list<T>(key: string, readItem: ItemReader<T>, rules: ListRules = {}): T[] | undefined {
    const value = this.value(key, rules.required);
    if (value === undefined) return undefined;
    const path = this.pathOf(key);
    if (!Array.isArray(value)) {
      if (rules.single === true) {
        const item = readItem(value, path, this.issues);
        return item === undefined ? undefined : [item];
      }
      this.issues.add(path, 'must be an array');
      return undefined;
    }
    const items: readonly unknown[] = value;
    const countProblem = describeCount(items.length, rules);
    if (countProblem !== undefined) this.issues.add(path, countProblem);
    const read: T[] = [];
    items.forEach((item, index) => {
      const one = readItem(item, itemPath(path, index), this.issues);
      if (one !== undefined) read.push(one);
    });
    return read;
  }

  /** The properties whose keys are not in `known`, as a new object (any `__proto__` key stays a plain key). */
  rest(known: ReadonlySet<string>): JsonRecord {
    return Object.fromEntries(Object.entries(this.source).filter(([key]) => !known.has(key)));
  }
}

function describeCount(length: number, rules: ListRules): string | undefined {
  const { min, max } = rules;
  const noun = rules.noun ?? 'item';
  const tooFew = min !== undefined && length < min;
  const tooMany = max !== undefined && length > max;
  if (!tooFew && !tooMany) return undefined;
  if (min !== undefined && max !== undefined) return `must hold ${min} to ${max} ${noun}s (it holds ${length})`;
  if (min !== undefined) return `must hold at least ${min} ${noun}${min === 1 ? '' : 's'}`;
  return `must hold at most ${max} ${noun}s (it holds ${length})`;
}

/** The object without its undefined fields, so an optional field the client did not send is absent, not `undefined`. */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

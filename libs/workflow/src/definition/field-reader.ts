import { ValidationErrors, fieldPath, itemPath } from './validation-errors';

export type JsonObject = { readonly [key: string]: unknown };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ItemCount {
  readonly min: number;
  readonly max?: number;
  /** The error when the count is off, e.g. `must hold 2 to 10 branches`. */
  readonly message: string;
}

/**
 * Reads typed fields of one JSON object and reports each wrong one under its path.
 * A field that is null counts as absent. A reader returns undefined for an absent
 * optional field, and for a wrong one after reporting it, so callers build their
 * typed result from what they read and the caller of all of them trusts the result
 * only when no error was reported.
 */
export class FieldReader {
  constructor(
    readonly source: JsonObject,
    readonly path: string,
    readonly errors: ValidationErrors,
  ) {}

  /** A reader for `value` at `path`, or undefined (reported) when it is not an object. */
  static of(value: unknown, path: string, errors: ValidationErrors): FieldReader | undefined {
    if (isJsonObject(value)) return new FieldReader(value, path, errors);
    errors.add(path, 'must be an object');
    return undefined;
  }

  pathOf(name: string): string {
    return fieldPath(this.path, name);
  }

  report(name: string, message: string): void {
    this.errors.add(this.pathOf(name), message);
  }

  /** The value of a field; reports `is required` when required and absent. */
  raw(name: string, required = false): unknown {
    const value = this.source[name];
    if (value !== undefined && value !== null) return value;
    if (required) this.report(name, 'is required');
    return undefined;
  }

  has(name: string): boolean {
    return this.raw(name) !== undefined;
  }

  /** Whether a list field is absent or an empty array (a field of another type is neither). */
  isEmptyList(name: string): boolean {
    const value = this.raw(name);
    return value === undefined || (Array.isArray(value) && value.length === 0);
  }

  /** A string; a required one must not be blank. */
  string(name: string, options: { readonly required?: boolean; readonly maxLength?: number } = {}): string | undefined {
    const value = this.raw(name, options.required);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') return this.wrong(name, 'must be a string');
    if (options.required === true && value.trim() === '') return this.wrong(name, 'must not be empty');
    if (options.maxLength !== undefined && value.length > options.maxLength) {
      return this.wrong(name, `must be at most ${options.maxLength} characters`);
    }
    return value;
  }

  oneOf<T extends string>(name: string, values: readonly T[], required = false): T | undefined {
    const value = this.raw(name, required);
    if (value === undefined) return undefined;
    const match = values.find((candidate) => candidate === value);
    if (match === undefined) this.report(name, `must be one of ${describeValues(values)}`);
    return match;
  }

  integer(name: string, range: { readonly min: number; readonly max?: number; readonly required?: boolean }): number | undefined {
    const value = this.raw(name, range.required);
    if (value === undefined) return undefined;
    const inRange = typeof value === 'number' && Number.isInteger(value) && value >= range.min && (range.max === undefined || value <= range.max);
    if (inRange) return value;
    return this.wrong(
      name,
      range.max === undefined ? `must be an integer of at least ${range.min}` : `must be an integer from ${range.min} to ${range.max}`,
    );
  }

  boolean(name: string): boolean | undefined {
    const value = this.raw(name);
    if (value === undefined || typeof value === 'boolean') return value;
    return this.wrong(name, 'must be true or false');
  }

  object(name: string, required = false): FieldReader | undefined {
    const value = this.raw(name, required);
    return value === undefined ? undefined : FieldReader.of(value, this.pathOf(name), this.errors);
  }

  /** An array whose items `readItem` reads (each at `name[i]`); unreadable items are left out, reported. */
  list<T>(
    name: string,
    readItem: (item: unknown, path: string) => T | undefined,
    options: { readonly required?: boolean; readonly count?: ItemCount } = {},
  ): readonly T[] | undefined {
    const value = this.raw(name, options.required);
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) return this.wrong(name, 'must be an array');
    const array: readonly unknown[] = value;
    const { count } = options;
    if (count !== undefined && (array.length < count.min || (count.max !== undefined && array.length > count.max))) {
      this.report(name, count.message);
    }
    const items: T[] = [];
    for (const [index, item] of array.entries()) {
      const read = readItem(item, itemPath(this.pathOf(name), index));
      if (read !== undefined) items.push(read);
    }
    return items;
  }

  /** An array of strings. */
  strings(name: string, required = false): readonly string[] | undefined {
    return this.list(
      name,
      (item, path) => {
        if (typeof item === 'string') return item;
        this.errors.add(path, 'must be a string');
        return undefined;
      },
      { required },
    );
  }

  /** An array whose items are each one of `values`. */
  oneOfEach<T extends string>(name: string, values: readonly T[]): readonly T[] | undefined {
    return this.list(name, (item, path) => {
      const match = values.find((candidate) => candidate === item);
      if (match === undefined) this.errors.add(path, `must be one of ${describeValues(values)}`);
      return match;
    });
  }

  private wrong(name: string, message: string): undefined {
    this.report(name, message);
    return undefined;
  }
}

export function describeValues(values: readonly string[]): string {
  return values.map((value) => (value === '' ? '""' : value)).join(', ');
}

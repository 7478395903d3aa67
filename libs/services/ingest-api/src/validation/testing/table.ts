import { FieldError, ParseResult } from '@herald/contracts';
import { withChanges } from './json-path';

/** One row of a failing table: changes to a valid body, and exactly the paths they must be reported at. */
export interface FailingCase {
  readonly rule: string;
  readonly changes: Readonly<Record<string, unknown>>;
  readonly paths: readonly string[];
}

/** One row of a passing table: changes that keep the body valid. */
export interface PassingCase {
  readonly rule: string;
  readonly changes: Readonly<Record<string, unknown>>;
}

/** The sorted error paths of a result ([] when it passed), for exact comparison. */
export function errorPaths(result: ParseResult<unknown>): string[] {
  return result.ok ? [] : result.errors.map((error: FieldError) => error.path).sort();
}

export function pathsAfter(validate: (body: unknown) => ParseResult<unknown>, base: () => unknown, changes: Readonly<Record<string, unknown>>): string[] {
  return errorPaths(validate(withChanges(base(), changes)));
}

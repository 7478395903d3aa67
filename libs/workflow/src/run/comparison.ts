import { ComparisonOp } from '../definition';
import { assertNever } from '@herald/decider';

/**
 * The comparison operators of branch, trigger and variant conditions. They are total:
 * a missing or mistyped operand makes a comparison false (NOT_CONTAINS and
 * NOT_ARRAY_INTERSECTS true), never an error, because conditions exist to test data
 * that may be absent.
 *
 * - `==`, `!=`: JSON equality, except that scalars compare as numbers when both read as
 *   numbers (`5` equals `"5.0"`) and otherwise as text (`true` equals `"true"`): a
 *   condition's value is written as text.
 * - `>`, `<`, `>=`, `<=`: numbers when both read as numbers, else two strings by code
 *   points; anything else is false.
 * - `EMPTY`: missing, null, `""`, `[]` or `{}`; `NON_EMPTY` the opposite.
 * - `CONTAINS`: a string holds the value as a substring, an array holds an element equal
 *   to it, an object has it as a key.
 * - `DATETIME_*`: both sides read as instants (ISO 8601 text, or epoch seconds), compared
 *   to the millisecond.
 * - `ARRAY_INTERSECTS` (trigger conditions): the two sides, a scalar taken as a
 *   one-element array, share an element.
 */
export function compare(op: ComparisonOp, left: unknown, right: unknown): boolean {
  switch (op) {
    case '==':
      return looseEquals(left, right);
    case '!=':
      return !looseEquals(left, right);
    case '>':
      return order(left, right, (c) => c > 0);
    case '<':
      return order(left, right, (c) => c < 0);
    case '>=':
      return order(left, right, (c) => c >= 0);
    case '<=':
      return order(left, right, (c) => c <= 0);
    case 'EMPTY':
      return isEmpty(left);
    case 'NON_EMPTY':
      return !isEmpty(left);
    case 'CONTAINS':
      return contains(left, right);
    case 'NOT_CONTAINS':
      return !contains(left, right);
    case 'DATETIME_EQUALS':
      return instants(left, right, (a, b) => a === b);
    case 'DATETIME_LT':
      return instants(left, right, (a, b) => a < b);
    case 'DATETIME_GT':
      return instants(left, right, (a, b) => a > b);
    case 'ARRAY_INTERSECTS':
      return intersects(left, right);
    case 'NOT_ARRAY_INTERSECTS':
      return !intersects(left, right);
    default:
      return assertNever(op);
  }
}

export function looseEquals(left: unknown, right: unknown): boolean {
  if (isScalar(left) && isScalar(right)) {
    const a = asNumber(left);
    const b = asNumber(right);
    return a !== undefined && b !== undefined ? a === b : String(left) === String(right);
  }
  return canonical(left) === canonical(right);
}

/** A finite number, or text that is one (not blank). */
export function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;

/** Milliseconds since the epoch of an ISO 8601 text or of epoch seconds (number or numeric text). */
export function asInstant(value: unknown): number | undefined {
  const seconds = asNumber(value);
  if (seconds !== undefined) return validInstant(seconds * 1000);
  if (typeof value !== 'string' || !ISO_DATE.test(value)) return undefined;
  return validInstant(Date.parse(value));
}

/** The range a JavaScript Date can hold. */
export const MAX_INSTANT_MS = 8.64e15;

function validInstant(ms: number): number | undefined {
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_INSTANT_MS ? ms : undefined;
}

function order(left: unknown, right: unknown, holds: (comparison: number) => boolean): boolean {
  const a = asNumber(left);
  const b = asNumber(right);
  if (a !== undefined && b !== undefined) return holds(a - b);
  if (typeof left === 'string' && typeof right === 'string') return holds(left < right ? -1 : left > right ? 1 : 0);
  return false;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

function contains(left: unknown, right: unknown): boolean {
  if (right === undefined || right === null) return false;
  if (typeof left === 'string') return isScalar(right) && left.includes(String(right));
  if (Array.isArray(left)) return left.some((element) => looseEquals(element, right));
  if (isRecord(left)) return isScalar(right) && Object.prototype.hasOwnProperty.call(left, String(right));
  return false;
}

function instants(left: unknown, right: unknown, holds: (a: number, b: number) => boolean): boolean {
  const a = asInstant(left);
  const b = asInstant(right);
  return a !== undefined && b !== undefined && holds(a, b);
}

function intersects(left: unknown, right: unknown): boolean {
  const rights = asArray(right);
  return asArray(left).some((a) => rights.some((b) => looseEquals(a, b)));
}

function asArray(value: unknown): readonly unknown[] {
  if (Array.isArray(value)) return value;
  return value === undefined || value === null ? [] : [value];
}

type Scalar = string | number | boolean;

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON with sorted keys, so key order does not make two objects differ. */
function canonical(value: unknown): string | undefined {
  return JSON.stringify(value, (_key, inner: unknown) =>
    isRecord(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : inner,
  );
}

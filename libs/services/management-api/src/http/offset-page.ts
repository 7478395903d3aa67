import { FieldError, HeraldError } from '@herald/contracts';

export interface OffsetPage {
  readonly limit: number;
  readonly offset: number;
}

export interface OffsetList<T> {
  readonly meta: { readonly count: number; readonly limit: number; readonly offset: number };
  readonly results: readonly T[];
}

/** `limit` (default 20, at most 1000) and `offset` of the management lists (decisions.md). */
export function offsetPage(limit: string | undefined, offset: string | undefined): OffsetPage {
  const errors: FieldError[] = [];
  const parse = (name: string, raw: string | undefined, fallback: number, min: number, max: number): number => {
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      errors.push({ path: name, message: `must be an integer from ${min} to ${max}` });
      return fallback;
    }
    return value;
  };
  const page = { limit: parse('limit', limit, 20, 1, 1000), offset: parse('offset', offset, 0, 0, 1_000_000_000) };
  if (errors.length > 0) throw HeraldError.validation(errors);
  return page;
}

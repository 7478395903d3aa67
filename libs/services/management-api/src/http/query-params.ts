import { HeraldError } from '@herald/contracts';

export type Mode = 'draft' | 'live';
export const MODES: readonly Mode[] = ['draft', 'live'];

/** `?mode=draft|live` of the versioned resources (categories, templates, workflows); draft when absent. */
export function modeOf(raw: string | undefined, allowed: readonly Mode[] = MODES, fallback: Mode = 'draft'): Mode {
  if (raw === undefined || raw === '') return fallback;
  const mode = allowed.find((m) => m === raw);
  if (!mode) throw HeraldError.validation([{ path: 'mode', message: `must be ${allowed.join(' or ')}` }]);
  return mode;
}

/** A version number in a path (`.../versions/{version}/` of workflows and templates): 1, 2, ... */
export function versionNumberOf(raw: string): number {
  if (!/^[1-9]\d{0,8}$/.test(raw)) throw HeraldError.validation([{ path: 'version', message: 'must be a version number (1, 2, ...)' }]);
  return Number(raw);
}

/** A boolean query parameter such as `commit=true`; absent means false. */
export function booleanOf(name: string, raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw HeraldError.validation([{ path: name, message: 'must be true or false' }]);
}

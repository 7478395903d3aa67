import { CHANNELS, Channel, HeraldError } from '@herald/contracts';
import { MODES, Mode } from './template-rows';

/** `?mode=draft|live`; the approval endpoints accept only `live`, as in the reference. */
export function modeOf(raw: string | undefined, allowed: readonly Mode[] = MODES, fallback: Mode = 'draft'): Mode {
  if (raw === undefined || raw === '') return fallback;
  const mode = allowed.find((m) => m === raw);
  if (!mode) throw HeraldError.validation([{ path: 'mode', message: `must be ${allowed.join(' or ')}` }]);
  return mode;
}

/** A channel in a path; anything else addresses nothing (404, as unknown ids do). */
export function channelOf(raw: string): Channel {
  const channel = CHANNELS.find((c) => c === raw);
  if (!channel) throw HeraldError.notFound(`channel '${raw}' not found; channels are ${CHANNELS.join(', ')}`);
  return channel;
}

/** `q` matches names and slugs as a substring; LIKE's wildcards in it are literal. */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

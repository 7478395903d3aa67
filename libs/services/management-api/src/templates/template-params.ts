import { CHANNELS, Channel, HeraldError } from '@herald/contracts';

/** `?mode=draft|live`; the approval endpoints accept only `live`, as in the reference. */
export { modeOf } from '../http/query-params';

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

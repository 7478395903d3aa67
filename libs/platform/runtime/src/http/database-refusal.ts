import { HeraldError, RetryLaterError } from '@herald/contracts';
import type { HeraldLogger } from '../logging/logger';

/**
 * How a failure to reach the database refuses a request:
 *
 * - `saturated`: the database is alive but every connection is busy, so the wait for
 *   one ran out. pg-pool's checkout wait ("timeout exceeded when trying to connect":
 *   the pool is at its max and no client came back in time); pg-pool's connect wait
 *   ("Connection terminated due to connection timeout": the server took the TCP
 *   connection but did not finish the handshake in time, which on the embedded
 *   database is the startup round queued behind every other connection's rounds on
 *   PGlite's one session); a server out of connection slots (SQLSTATE 53300).
 *   Overload: 429 with `Retry-After`, like the backlog push-back.
 * - `unreachable`: there is no database to wait for: the connection was refused, the
 *   host is unknown or unreachable, the connection broke, or the server is starting or
 *   shutting down. 503.
 *
 * Anything else (a SQL error, a bug) is not a database-availability failure: undefined.
 * Errors are recognised by their fields (SQLSTATE or system `code`, pg-pool's fixed
 * messages); wrappers (TypeORM's `driverError`, `cause`) are looked into, and the
 * outermost error with a verdict decides (a connect timeout wraps the broken
 * connection it caused).
 */
export type DatabaseFailure = 'saturated' | 'unreachable';

/** What a client refused for saturation is told to wait: a busy moment passes in about that long. */
export const DATABASE_SATURATED_RETRY_AFTER_SECONDS = 1;

const SATURATED_SQLSTATES = new Set(['53300']);
const SATURATED_MESSAGES = [/^timeout exceeded when trying to connect$/, /^Connection terminated due to connection timeout$/];

/** Connection-level SQLSTATEs: the server is going away or starting (57P0x), the connection failed (08xxx). */
const UNREACHABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);
const UNREACHABLE_SYSTEM_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** pg's messages for a connection that broke, and pg-pool's after it was ended (shutdown). */
const UNREACHABLE_MESSAGES = [/^Connection terminated/, /^Cannot use a pool after calling end/];

export function classifyDatabaseFailure(error: unknown): DatabaseFailure | undefined {
  let candidate: unknown = error;
  for (let hops = 0; hops < 4 && typeof candidate === 'object' && candidate !== null; hops++) {
    const verdict = classifyOne(candidate as { code?: unknown; message?: unknown });
    if (verdict) return verdict;
    const wrapper = candidate as { driverError?: unknown; cause?: unknown };
    candidate = wrapper.driverError ?? wrapper.cause;
  }
  return undefined;
}

function classifyOne(error: { code?: unknown; message?: unknown }): DatabaseFailure | undefined {
  const code = typeof error.code === 'string' ? error.code : undefined;
  const message = typeof error.message === 'string' ? error.message : '';
  if (code !== undefined && SATURATED_SQLSTATES.has(code)) return 'saturated';
  if (SATURATED_MESSAGES.some((pattern) => pattern.test(message))) return 'saturated';
  if (code !== undefined && (UNREACHABLE_SQLSTATES.has(code) || UNREACHABLE_SYSTEM_CODES.has(code))) return 'unreachable';
  if (UNREACHABLE_MESSAGES.some((pattern) => pattern.test(message))) return 'unreachable';
  return undefined;
}

/**
 * The refusal a request gets when the database failed it: saturation pushes back (429,
 * `Retry-After`, the backlog push-back's contract), an unreachable database is a 503.
 * `what` names what could not be done (the database, or the bus journal on it). Undefined
 * when the failure is not about reaching the database.
 */
export function databaseRefusal(error: unknown, what = 'database'): HeraldError | undefined {
  const failure = classifyDatabaseFailure(error);
  if (failure === undefined) return undefined;
  const refusal =
    failure === 'saturated'
      ? new RetryLaterError(`Herald is busy (every ${what} connection is in use); retry after ${DATABASE_SATURATED_RETRY_AFTER_SECONDS} s`, DATABASE_SATURATED_RETRY_AFTER_SECONDS)
      : new HeraldError('unavailable', `Herald cannot accept requests right now (${what} unavailable); retry later`);
  // Kept for the logs and for the consumers' failure classification, which looks into causes.
  refusal.cause = error;
  return refusal;
}

/**
 * What a request gets when Herald's own infrastructure failed `doing` it: the database's
 * refusal (`databaseRefusal`), or else a 503 naming `what`; logged as a warning when it
 * is a push-back (overload, as the backlog bound's), as an error otherwise. Never a 500.
 */
export function refuseInfrastructureFailure(logger: HeraldLogger, doing: string, error: unknown, what = 'database'): HeraldError {
  const refusal = databaseRefusal(error, what) ?? new HeraldError('unavailable', `Herald cannot accept requests right now (${what} unavailable); retry later`);
  const pushBack = refusal instanceof RetryLaterError;
  logger[pushBack ? 'warn' : 'error'](`${doing} failed; request refused with ${pushBack ? 429 : 503}`, { err: (error as Error).message });
  return refusal;
}

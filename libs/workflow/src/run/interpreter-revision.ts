import { RunStarted } from './run-events';

/**
 * The interpreter's behaviour revision. A run records the revision it started on
 * (`run.started.v1`'s `interpreter_revision`; absent on runs started before revisions
 * existed, which are revision 1) and is decided by that revision's rules to its end, so
 * a change of behaviour applies to new runs only and an old run replays as it ran.
 *
 * A behaviour change bumps this number and keeps the old rule behind `runsRevision`:
 * - 2: a run discarded because its conditions do not hold names each false comparison
 *   with the operands it compared (revision 1 named the variable and the operator only).
 * - 3: a webhook's or fetch's answer is held to the API edge's nesting and keys-per-object
 *   limits (INPUT_LIMITS) before it is merged (revisions 1 and 2 merged any answer
 *   Postgres could store; one it cannot store fails the node on every revision).
 * - 4: smart routing falls back: when the channel it routed to fails for good
 *   (`delivery_failure`, or `bounced` from a vendor's status callback), the next of the
 *   node's channels that passes is sent (revisions 1 to 3 stopped at the first).
 */
export const INTERPRETER_REVISION = 4;

/** The revision a run follows: the one it started on. */
export function revisionOf(started: Pick<RunStarted, 'interpreter_revision'>): number {
  return started.interpreter_revision ?? 1;
}

/** Whether a run follows a rule introduced in `revision`. */
export function runsRevision(started: Pick<RunStarted, 'interpreter_revision'>, revision: number): boolean {
  return revisionOf(started) >= revision;
}

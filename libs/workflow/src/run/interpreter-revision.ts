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
 */
export const INTERPRETER_REVISION = 2;

/** The revision a run follows: the one it started on. */
export function revisionOf(started: Pick<RunStarted, 'interpreter_revision'>): number {
  return started.interpreter_revision ?? 1;
}

/** Whether a run follows a rule introduced in `revision`. */
export function runsRevision(started: Pick<RunStarted, 'interpreter_revision'>, revision: number): boolean {
  return revisionOf(started) >= revision;
}

// A module of its own: run-events (`run.started.v1`) and run-inputs (`StartRun`) both carry it,
// and run-inputs imports run-events (no import cycles).

/** Why the run exists: a trigger, an inbound event, or a recipient override of a parent run. */
export type RunSource =
  | { readonly kind: 'trigger' }
  | { readonly kind: 'event'; readonly event: string }
  /** Started by the host for one recipient of a parent's `recipients.overridden.v1`; overrides are not applied again. */
  | { readonly kind: 'recipient_override'; readonly parent_run_id: string };

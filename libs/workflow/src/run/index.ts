/**
 * The workflow run interpreter (issue 5): a pure Decider over one run's inputs and
 * events. The engine host loads the context, feeds inputs, appends the decided events
 * to the run's stream and acts on them (timers, http requests, delivery commands).
 */
export { RunDecider, createRunDecider } from './run-decider';
export { RunPorts, RunExpressions, JqOutcome, JsonnetOutcome, PreferencePolicy, PreferenceQuestion, PreferenceDecision } from './ports';
export { RunContext, StoredProfile, TenantContext, PreferenceSnapshot, TemplateEntry, TemplateVariant } from './run-context';
export {
  RunInput,
  StartRun,
  TimerFiredInput,
  HttpRespondedInput,
  HttpResponse,
  DeliveryOutcomeInput,
  CancelRun,
  FutureEventInput,
  AccumulationJoinedInput,
  AccumulationClosedInput,
  AccumulationHandedOverInput,
  futureEventOf,
  PinnedWorkflow,
  StartIds,
  startFromTrigger,
  startFromEvent,
  userRecipient,
} from './run-inputs';
export { RunSource } from './run-source';
export * from './run-events';
export { RunState, NewRun, LiveRun, LiveStatus, Waiting, AccumulationWaiting, AccumulationPlace, Batched } from './run-state';
export {
  AccumulatorDecider,
  AccumulatorInput,
  AccumulatorEvent,
  AccumulatorState,
  AccumulatorJoined,
  AccumulatorLeft,
  LeaveAccumulator,
  JoinRole,
  KEPT_FINISHED_BATCHES,
  accumulatorSnapshotCodec,
  compactAccumulatorState,
  createAccumulatorDecider,
} from './accumulator';
export { NodePath, nodeAt, pathLabel, pathKey } from './node-path';
export { rateLimitAllows, MAX_OVERRIDE_RECIPIENTS } from './gates';
export { HTTP_TIMEOUT_MS } from './http';
export { DEFAULT_LOCALE } from './variant-selection';
export { SEND_NODE_CHANNELS } from './send';
export { INTERPRETER_REVISION, revisionOf, runsRevision } from './interpreter-revision';
export {
  RecordedRun,
  RecordedRunInput,
  LoggedRunEvent,
  recordedRunOf,
  ReplayedRun,
  ReplayedSend,
  ReplayedBranch,
  ReplayedDelay,
  ReplayNote,
  ReplayStatus,
  ReplayChange,
  ReplaySummary,
  RunReplayResult,
  replayRun,
  diffReplay,
  outcomesOf,
  whatIf,
  summarizeReplay,
} from './what-if';

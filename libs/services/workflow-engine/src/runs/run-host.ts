import { Inject, Injectable } from '@nestjs/common';
import { DeliveryOutcome, Envelope, EventAccepted, Recipient, TOPICS, TriggerAccepted, TriggerChunkAccepted, deterministicUuid, expandTriggerChunk, userKey } from '@herald/contracts';
import { DEFAULT_MAX_BATCH_MESSAGES, MessageBus } from '@herald/bus';
import { BatchInput, FollowUpAsk, ProcessBatchOptions, StreamProcessor } from '@herald/event-store';
import { CLOCK, Clock, HERALD_LOGGER, HeraldLogger, MESSAGE_BUS } from '@herald/runtime';
import {
  AccumulationPlace,
  AccumulatorEvent,
  AccumulatorInput,
  AccumulatorState,
  HttpResponse,
  PreferencePolicy,
  RunContext,
  RunEvent,
  RunExpressions,
  RunInput,
  RunState,
  WorkflowDefinition,
  accumulatorSnapshotCodec,
  createAccumulatorDecider,
  createRunDecider,
  futureEventOf,
  startFromEvent,
  startFromTrigger,
} from '@herald/workflow';
import { AnnouncedWorkflow } from '../read-models/definition.repository';
import { LiveAudience } from '../read-models/live-audience';
import { LiveDefinitions } from '../read-models/live-definitions';
import { childRunMessages } from './child-runs';
import { EngineEventStoreRepository } from './engine-event-store.repository';
import { ContextRequest, RunContextLoader } from './run-context-loader';
import { runEffects } from './run-effects';
import { RunProjectionRows, runProjectionRows, writeRunProjections } from './run-projection';
import { RunProjectionRepository } from './run-projection.repository';
import { accumulatorStreamId, parseRunStreamId, runKey, runStreamId } from './run-stream';

export const RUN_EXPRESSIONS = Symbol('RUN_EXPRESSIONS');
export const PREFERENCE_POLICY = Symbol('PREFERENCE_POLICY');
/** Accumulator events between snapshots: a step folds at most this many after decoding one. */
const ACCUMULATOR_SNAPSHOT_EVERY = 50;
/**
 * Runs whose state the engine keeps after deciding them (StreamProcessor's
 * recentStreams): a delivery's outcome is decided without reading its run again. At
 * 1,000 triggers/s an outcome comes back within a second, so this covers several
 * seconds of runs, for a few kB each.
 */
const RECENT_RUNS = 16_384;

/**
 * Drives runs: for each input it loads the context, lets the pure interpreter decide
 * on the run's stream (StreamProcessor: read, fold, decide, append with effects in one
 * transaction, decide again on a lost race), and logs what the run did. A redelivered
 * input decides nothing new, because the interpreter ignores what its log already holds.
 *
 * Triggers, events, fired timers and delivery outcomes come in batches (one partition's
 * messages at a time): the contexts of the whole batch are loaded together (definitions from the
 * per-process cache, the audience in one statement), and the batch is decided and
 * appended at once (`StreamProcessor.processBatch`: one read of every stream, one
 * transaction for every stream's events, effects and projection rows).
 */
@Injectable()
export class RunHost {
  private readonly processor: StreamProcessor<RunInput, RunEvent, RunState, RunProjectionRows>;
  /** Batch and digest accumulators: streams of their own, with no effects (the owner run holds the timer). */
  private readonly accumulators: StreamProcessor<AccumulatorInput, AccumulatorEvent, AccumulatorState>;

  constructor(
    eventStore: EngineEventStoreRepository,
    private readonly projection: RunProjectionRepository,
    private readonly definitions: LiveDefinitions,
    private readonly contexts: RunContextLoader,
    @Inject(RUN_EXPRESSIONS) expressions: RunExpressions,
    @Inject(PREFERENCE_POLICY) preferences: PreferencePolicy,
    private readonly audience: LiveAudience,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {
    this.processor = new StreamProcessor(
      eventStore.streams,
      createRunDecider({ expressions, preferences }),
      { toStored: (event) => ({ type: event.type, data: event }), fromStored: (recorded) => recorded.data as RunEvent },
      (events, _before, after, streamId, now) => runEffects(events, after, streamId, now),
      {
        projection: {
          rowsOf: (events, _before, after, streamId, now) => runProjectionRows(events, after, streamId, now),
          write: (tx, rows) => writeRunProjections(this.projection, tx, rows),
        },
        recentStreams: RECENT_RUNS,
      },
    );
    this.accumulators = new StreamProcessor(
      eventStore.streams,
      createAccumulatorDecider(),
      { toStored: (event) => ({ type: event.type, data: event }), fromStored: (recorded) => recorded.data as AccumulatorEvent },
      () => ({}),
      // A recipient's digest lives for months: read it from a snapshot (EngineLoops compacts what it replaced).
      { snapshot: { every: ACCUMULATOR_SNAPSHOT_EVERY, ...accumulatorSnapshotCodec } },
    );
  }

  /** A trigger for one recipient starts a run of the workflow's live version. */
  async startFromTrigger(envelope: Envelope<TriggerAccepted>): Promise<void> {
    await this.startFromTriggers([envelope]);
  }

  /**
   * Chunks of a trigger's recipients: each recipient's trigger, with the id its own
   * message would have had, started like any other, at most as many runs per batch as
   * a batch of single triggers holds. A redelivered chunk (a crash after some of these
   * batches) starts nothing twice: the runs it already started ignore their trigger.
   */
  async startFromTriggerChunks(chunks: readonly Envelope<TriggerChunkAccepted>[]): Promise<void> {
    const triggers = chunks.flatMap(expandTriggerChunk);
    for (let i = 0; i < triggers.length; i += DEFAULT_MAX_BATCH_MESSAGES) await this.startFromTriggers(triggers.slice(i, i + DEFAULT_MAX_BATCH_MESSAGES));
  }

  /** Triggers start runs, decided and appended as one batch (see the class comment). */
  async startFromTriggers(envelopes: readonly Envelope<TriggerAccepted>[]): Promise<void> {
    // A broadcast's member carries its workflow inline; a trigger names a live one.
    const named = envelopes.filter((e) => !e.payload.inline_workflow);
    const live = await this.definitions.currentDocuments(named.map((e) => ({ workspaceId: e.workspace_id, kind: 'workflow' as const, id: e.payload.workflow })));
    const workflowOf = new Map(named.map((e, i) => [e, live[i] as AnnouncedWorkflow | undefined]));
    const starts: Array<{ envelope: Envelope<TriggerAccepted>; pinned: PinnedWorkflow }> = [];
    for (const envelope of envelopes) {
      const trigger = envelope.payload;
      if (trigger.inline_workflow) {
        const inline = trigger.inline_workflow;
        starts.push({ envelope, pinned: { slug: inline.slug, version: inline.version, definition: inline.definition as unknown as WorkflowDefinition } });
        continue;
      }
      const workflow = workflowOf.get(envelope);
      if (!workflow?.is_enabled) {
        this.logger.warn('trigger dropped: its workflow is no longer live', { run_id: envelope.message_id, message_id: trigger.message_id, workflow: trigger.workflow });
        continue;
      }
      starts.push({ envelope, pinned: pin(workflow) });
    }
    const contexts = await this.contexts.loadMany(
      starts.map(({ envelope, pinned }) => contextRequest(envelope.workspace_id, pinned, envelope.payload.recipient, envelope.message_id, envelope.payload.tenant_id)),
    );
    await this.stepBatch(
      starts.map(({ envelope, pinned }, i) => ({
        streamId: runStreamId(envelope.workspace_id, envelope.message_id),
        input: startFromTrigger(envelope.payload, { run_id: envelope.message_id, workflow: pinned, context: contexts[i] }),
      })),
      { presumedNew: true },
    );
  }

  /** An event starts every live workflow whose trigger_events name it, one run each. */
  async startFromEvent(envelope: Envelope<EventAccepted>): Promise<void> {
    await this.startFromEvents([envelope]);
  }

  /**
   * Events of a batch: the runs they start, decided and appended as one batch, then the
   * waiting runs each resumes, in the order of the events.
   */
  async eventsAccepted(envelopes: readonly Envelope<EventAccepted>[]): Promise<void> {
    await this.startFromEvents(envelopes);
    for (const envelope of envelopes) await this.resumeWaiting(envelope);
  }

  private async startFromEvents(envelopes: readonly Envelope<EventAccepted>[]): Promise<void> {
    const starts: Array<{ envelope: Envelope<EventAccepted>; pinned: PinnedWorkflow; runId: string; recipient: Recipient }> = [];
    for (const envelope of envelopes) {
      const event = envelope.payload;
      for (const workflow of await this.definitions.workflowsTriggeredBy(envelope.workspace_id, event.event)) {
        const recipient: Recipient = { kind: 'user', distinct_id: event.distinct_id, is_transient: false, inline: false, channels: {}, properties: {} };
        starts.push({ envelope, pinned: pin(workflow), runId: deterministicUuid(envelope.message_id, workflow.slug), recipient });
      }
    }
    const contexts = await this.contexts.loadMany(starts.map((s) => contextRequest(s.envelope.workspace_id, s.pinned, s.recipient, s.runId, s.envelope.payload.tenant_id)));
    await this.stepBatch(
      starts.map((s, i) => ({
        streamId: runStreamId(s.envelope.workspace_id, s.runId),
        input: startFromEvent(s.envelope.payload, { run_id: s.runId, workflow: s.pinned, context: contexts[i] }),
      })),
      { presumedNew: true },
    );
  }

  /**
   * An event also resumes the runs of its user waiting for it at a wait-until node (the
   * wait index is written with their events). Whether it counts (accepted after the
   * wait began, event_conditions) is the interpreter's call.
   */
  async resumeWaiting(envelope: Envelope<EventAccepted>): Promise<void> {
    const event = envelope.payload;
    const waits = await this.projection.waitingRuns(envelope.workspace_id, userKey(envelope.workspace_id, event.distinct_id), event.event);
    for (const wait of waits) {
      const context = await this.contextOfStream(wait.streamId);
      if (!context) continue;
      const step = await this.step(wait.streamId, { type: 'future_event', event: futureEventOf(event), context });
      if (step.events.length === 0) this.logger.debug('event did not resume the waiting run', { run_id: wait.runId, event: event.event, message_id: event.message_id });
    }
  }

  /** Also the durable follow-up of a cancel at a batch or digest (its leave timer, see runEffects): step() finishes the leave. */
  async timerFired(streamId: string, timerId: string): Promise<void> {
    await this.timersFired([{ streamId, timerId }]);
  }

  /** Fired timers as one batch: the runs' streams are read once, for their contexts and their decisions. */
  async timersFired(timers: ReadonlyArray<{ readonly streamId: string; readonly timerId: string }>): Promise<void> {
    const loaded = await this.processor.loadMany(timers.map((t) => t.streamId));
    const contexts = await this.contextsOfStates(new Map([...loaded].map(([streamId, stream]) => [streamId, stream.state])));
    const items: Array<BatchInput<RunInput>> = [];
    for (const { streamId, timerId } of timers) {
      const context = contexts.get(streamId);
      if (context) items.push({ streamId, input: { type: 'timer_fired', timer_id: timerId, context } });
    }
    await this.stepBatch(items, { loaded });
  }

  async httpResponded(streamId: string, requestId: string, response: HttpResponse): Promise<void> {
    const context = await this.contextOfStream(streamId);
    if (context) await this.step(streamId, { type: 'http_responded', request_id: requestId, response, context });
  }

  async deliveryOutcome(workspaceId: string, outcome: DeliveryOutcome): Promise<void> {
    await this.deliveryOutcomes([{ workspaceId, outcome }]);
  }

  /**
   * Delivery outcomes as one batch, as fired timers: the runs' streams are read once, for
   * their contexts and their decisions. Every delivery sends one back, so one at a time
   * they cost the engine more transactions than the triggers that started the runs.
   */
  async deliveryOutcomes(outcomes: ReadonlyArray<{ readonly workspaceId: string; readonly outcome: DeliveryOutcome }>): Promise<void> {
    const streamIds = outcomes.map(({ workspaceId, outcome }) => runStreamId(workspaceId, outcome.run_id));
    const loaded = await this.processor.loadMany([...new Set(streamIds)]);
    const contexts = await this.contextsOfStates(new Map([...loaded].map(([streamId, stream]) => [streamId, stream.state])));
    const items: Array<BatchInput<RunInput>> = [];
    outcomes.forEach(({ outcome }, i) => {
      const context = contexts.get(streamIds[i]);
      if (context) items.push({ streamId: streamIds[i], input: { type: 'delivery_outcome', outcome, context } });
    });
    await this.stepBatch(items, { loaded });
  }

  /** A run cancelled at a batch or digest node also leaves its accumulator: see step() and leaveAccumulator(). */
  async cancel(streamId: string, reason: string): Promise<RunState> {
    const context = await this.contextOfStream(streamId);
    if (!context) return { status: 'new' };
    return (await this.step(streamId, { type: 'cancel', reason, context })).state;
  }

  /**
   * A run cancelled at a batch or digest node leaves its accumulator (its event is taken
   * out), and a cancelled owner's batch is handed to the earliest run merged into it.
   * Driven by the run's state and idempotent. The cancel's append also sets a leave
   * timer due at once (runEffects), so a crash right after the cancel is finished by the
   * poller, not by a client repeating the cancel.
   */
  private async leaveAccumulator(streamId: string, state: RunState): Promise<void> {
    if (state.status !== 'cancelled' || state.left === undefined) return;
    const { workspaceId, runId } = parseRunStreamId(streamId);
    const accumulator = (await this.accumulators.process(accumulatorStreamId(workspaceId, state, state.left), { type: 'leave', run_id: runId }, this.clock.now())).state;
    const left = accumulator.left[runId];
    const successor = left?.successor_run_id;
    if (left === undefined || successor === undefined) return;
    const successorStream = runStreamId(workspaceId, successor);
    const context = await this.contextOfStream(successorStream);
    const closesAt = accumulator.joined[successor]?.closes_at;
    if (!context || closesAt === undefined) return;
    const input: RunInput = { type: 'accumulation_handed_over', path: state.left.path, batch_id: left.batch_id, from_run_id: runId, closes_at: closesAt, context };
    await this.step(successorStream, input);
  }

  /**
   * `step` for a batch of inputs (see the class comment), each stream's in order. The
   * runs' accumulator answers are asked for the whole batch at once (see
   * accumulatorAnswers), with each stream's latest input's context.
   */
  private async stepBatch(items: ReadonlyArray<BatchInput<RunInput>>, options: Pick<ProcessBatchOptions<RunInput, RunState>, 'loaded' | 'presumedNew'> = {}): Promise<void> {
    if (items.length === 0) return;
    const contextOf = new Map(items.map((item) => [item.streamId, item.input.context]));
    const steps = await this.processor.processBatch(items, this.clock.now(), {
      ...options,
      followUps: (asks) => this.accumulatorAnswers(asks, (streamId) => contextOf.get(streamId)),
    });
    for (const [streamId, step] of steps) await this.afterStep(streamId, step);
    this.logMerged(steps.values());
  }

  /**
   * One line per batch that runs merged into, with how many did in this step: at
   * thousands of joins a second, a line per merged run was most of what the engine
   * logged (each run's own events stay in its log, and at debug).
   */
  private logMerged(steps: Iterable<{ readonly events: readonly RunEvent[] }>): void {
    const merged = new Map<string, { owner_run_id: string; runs: number }>();
    for (const step of steps) {
      for (const event of step.events) {
        if (event.type !== 'accumulation.merged.v1') continue;
        const batch = merged.get(event.batch_id) ?? { owner_run_id: event.owner_run_id, runs: 0 };
        batch.runs += 1;
        merged.set(event.batch_id, batch);
      }
    }
    for (const [batchId, batch] of merged) this.logger.info('runs merged into a batch', { batch_id: batchId, ...batch });
  }

  /** What follows a recorded step: its log lines, the child runs it starts, and a cancelled run's leave from its accumulator. */
  private async afterStep(streamId: string, step: { state: RunState; events: readonly RunEvent[] }): Promise<void> {
    const { workspaceId, runId } = parseRunStreamId(streamId);
    for (const event of step.events) this.logEvent(runId, step.state, event);
    await this.startChildRuns(workspaceId, step.state, step.events);
    // A cancelled run leaves its accumulator (see leaveAccumulator); idempotent, so also after a redelivered input.
    await this.leaveAccumulator(streamId, step.state);
  }

  /**
   * Decides on the run and, while it waits at a batch or digest node for its
   * accumulator, on the accumulator's answer, appending both in one transaction (the
   * processor's follow-up). The accumulator is asked first: its answers are idempotent
   * per run, so a crash before the run's append is repaired by the redelivered input,
   * which asks again and gets the same answer.
   */
  private async step(streamId: string, input: RunInput): Promise<{ state: RunState; events: readonly RunEvent[] }> {
    // The follow-ups reuse the input's context: it was loaded for this step moments ago.
    const step = await this.processor.process(streamId, input, this.clock.now(), async (state) =>
      (await this.accumulatorAnswers([{ streamId, state }], () => input.context)).get(streamId),
    );
    await this.afterStep(streamId, step);
    this.logMerged([step]);
    return { state: step.state, events: step.events };
  }

  /**
   * The accumulators' answers for the runs of a batch waiting at a batch or digest node:
   * join (open, own or merge into the batch of its key) or close the batch it owns. All
   * the requests go to the accumulators as one batch (`processBatch`: their streams read
   * in one statement, each stream's requests decided in order in memory, one transaction
   * for all at their expected positions), so many runs joining one batch key cost one
   * append. A join racing a close (their inputs come through different consumer groups)
   * loses the race and is decided again on the new state. Answers are read from the
   * accumulator's state, where each run's join and each batch's close stay as first
   * decided: a repeated request gets the same answer.
   */
  private async accumulatorAnswers(asks: readonly FollowUpAsk<RunState>[], contextOf: (streamId: string) => RunContext | undefined): Promise<Map<string, RunInput>> {
    const requests: AccumulatorRequest[] = [];
    for (const { streamId, state } of asks) {
      if (state.status !== 'running' || state.waiting?.kind !== 'accumulation' || state.waiting.stage === 'open') continue;
      const context = contextOf(streamId);
      if (!context) continue;
      const waiting = state.waiting;
      const { workspaceId, runId } = parseRunStreamId(streamId);
      const accumulator = accumulatorStreamId(workspaceId, state, waiting);
      const input: AccumulatorInput =
        waiting.stage === 'joining' ? { type: 'join', run_id: runId, request: waiting.request } : { type: 'close', run_id: runId, batch_id: waiting.batch_id };
      requests.push({ streamId, runId, accumulator, input, path: waiting.path, context });
    }
    const answers = new Map<string, RunInput>();
    if (requests.length === 0) return answers;
    const steps = await this.accumulators.processBatch(
      requests.map((r) => ({ streamId: r.accumulator, input: r.input })),
      this.clock.now(),
    );
    for (const { streamId, runId, accumulator, input, path, context } of requests) {
      const state = steps.get(accumulator)?.state;
      if (state === undefined) continue;
      if (input.type === 'join') {
        const joined = state.joined[runId];
        if (joined) answers.set(streamId, { type: 'accumulation_joined', path, joined, context });
      } else if (input.type === 'close') {
        const closed = state.closed[input.batch_id];
        if (!closed) this.logger.warn('the batch this run owns is not in its accumulator', { run_id: runId, batch_id: input.batch_id, stream_id: accumulator });
        else answers.set(streamId, { type: 'accumulation_closed', path, batch_id: input.batch_id, events: closed.events, count: closed.count, context });
      }
    }
    return answers;
  }

  /**
   * After the step is recorded: an object recipient's own run fans out to its subscribers,
   * and a recipients override starts a run per computed recipient. A crash before this
   * publish loses nothing: the redelivered input decides nothing new and publishes
   * again, and the children's ids dedupe.
   */
  private async startChildRuns(workspaceId: string, state: RunState, events: readonly RunEvent[]): Promise<void> {
    if (state.status === 'new') return;
    const recipients: Recipient[] = [];
    for (const event of events) {
      if (event.type === 'recipients.overridden.v1') recipients.push(...event.recipients);
      if (event.type === 'run.started.v1' && event.recipient.kind === 'object' && event.source.kind !== 'recipient_override') {
        recipients.push(...(await this.audience.subscribers(workspaceId, event.recipient.object_type, event.recipient.id)));
      }
    }
    if (recipients.length === 0) return;
    await this.bus.publish(TOPICS.triggerAccepted.name, childRunMessages(workspaceId, state, recipients, this.clock.now()));
    this.logger.info('child runs started', { run_id: state.started.run_id, message_id: state.started.message_id, children: recipients.length });
  }

  /** The context for a later input of a run: its pinned definition, recipient and tenant come from its log. */
  private async contextOfStream(streamId: string): Promise<RunContext | undefined> {
    const [[, stream]] = await this.processor.loadMany([streamId]);
    return (await this.contextsOfStates(new Map([[streamId, stream.state]]))).get(streamId);
  }

  /** The contexts for later inputs of runs, from their folded states (pinned definition, recipient, tenant after overrides), loaded together. */
  private async contextsOfStates(states: ReadonlyMap<string, RunState>): Promise<Map<string, RunContext>> {
    const live: Array<[string, Extract<RunState, { started: unknown }>]> = [];
    for (const [streamId, state] of states) {
      if (state.status === 'new') this.logger.warn('input for a run that has no log; ignored', { stream_id: streamId });
      else live.push([streamId, state]);
    }
    const contexts = await this.contexts.loadMany(
      live.map(([streamId, state]) => {
        const { workspaceId, runId } = parseRunStreamId(streamId);
        return contextRequest(workspaceId, { slug: state.started.workflow.slug, definition: state.started.definition }, state.started.recipient, runId, state.tenant_id);
      }),
    );
    return new Map(live.map(([streamId], i) => [streamId, contexts[i]]));
  }

  private logEvent(runId: string, state: RunState, event: RunEvent): void {
    const messageId = state.status === 'new' ? undefined : state.started.message_id;
    const fields = { run_id: runId, message_id: messageId, event: event.type };
    switch (event.type) {
      case 'run.failed.v1':
        this.logger.warn('run failed', { ...fields, reason: event.reason });
        break;
      case 'run.discarded.v1':
        this.logger.info('run discarded', { ...fields, reason: event.reason });
        break;
      case 'delivery.requested.v1':
        this.logger.info('delivery requested', { ...fields, delivery_id: event.delivery.delivery_id, channel: event.delivery.channel });
        break;
      case 'wait.cancelled.v1':
        this.logger.info('run cancelled while waiting for an event; its wait is removed', { ...fields, event_name: event.event_name });
        break;
      case 'accumulation.merged.v1':
        // Counted per batch at info (logMerged).
        this.logger.debug('run merged into a batch', { ...fields, batch_id: event.batch_id, owner_run_id: event.owner_run_id });
        break;
      case 'accumulation.left.v1':
        this.logger.info('run cancelled at a batch or digest; it is removed from the batch', { ...fields, batch_id: event.batch_id });
        break;
      case 'accumulation.handed_over.v1':
        this.logger.info('batch handed over from its cancelled owner', { ...fields, batch_id: event.batch_id, from_run_id: event.from_run_id });
        break;
      case 'digest.skipped.v1':
        this.logger.info('digest skipped: too few triggers', { ...fields, count: event.count, trigger_min_count: event.trigger_min_count });
        break;
      default:
        this.logger.debug('run event', fields);
    }
  }
}

/** A run's request to its accumulator, and what its answer needs. */
interface AccumulatorRequest {
  readonly streamId: string;
  readonly runId: string;
  readonly accumulator: string;
  readonly input: AccumulatorInput;
  readonly path: AccumulationPlace['path'];
  readonly context: RunContext;
}

interface PinnedWorkflow {
  readonly slug: string;
  readonly version: number;
  readonly definition: WorkflowDefinition;
}

function contextRequest(workspaceId: string, workflow: { slug: string; definition: WorkflowDefinition }, recipient: Recipient, runId: string, tenantId?: string): ContextRequest {
  return { workspaceId, workflow, recipient, recipientKey: runKey(workspaceId, recipient, runId), tenantId };
}

function pin(workflow: AnnouncedWorkflow): PinnedWorkflow {
  return { slug: workflow.slug, version: workflow.version_no, definition: workflow.definition as unknown as WorkflowDefinition };
}

import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DeliveryOutcome, Envelope, EventAccepted, Recipient, TOPICS, TriggerAccepted, deterministicUuid } from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { EventStore, StreamProcessor } from '@herald/event-store';
import { CLOCK, Clock, HERALD_LOGGER, HeraldLogger, MESSAGE_BUS } from '@herald/runtime';
import {
  HttpResponse,
  PreferencePolicy,
  RunContext,
  RunEvent,
  RunExpressions,
  RunInput,
  RunState,
  WorkflowDefinition,
  createRunDecider,
  startFromEvent,
  startFromTrigger,
} from '@herald/workflow';
import { AudienceReadModel } from '../read-models/audience-read-model';
import { AnnouncedWorkflow, DefinitionsReadModel } from '../read-models/definitions-read-model';
import { childRunMessages } from './child-runs';
import { RunContextLoader } from './run-context-loader';
import { runEffects } from './run-effects';
import { runProjection } from './run-projection';
import { parseRunStreamId, runKey, runStreamId } from './run-stream';

export const RUN_EXPRESSIONS = Symbol('RUN_EXPRESSIONS');
export const PREFERENCE_POLICY = Symbol('PREFERENCE_POLICY');

/**
 * Drives runs: for each input it loads the context, lets the pure interpreter decide
 * on the run's stream (StreamProcessor: read, fold, decide, append with effects in one
 * transaction, decide again on a lost race), and logs what the run did. A redelivered
 * input decides nothing new, because the interpreter ignores what its log already holds.
 */
@Injectable()
export class RunHost {
  private readonly processor: StreamProcessor<RunInput, RunEvent, RunState>;
  private readonly store: EventStore;

  constructor(
    @InjectDataSource('engine') db: DataSource,
    private readonly definitions: DefinitionsReadModel,
    private readonly contexts: RunContextLoader,
    @Inject(RUN_EXPRESSIONS) expressions: RunExpressions,
    @Inject(PREFERENCE_POLICY) preferences: PreferencePolicy,
    private readonly audience: AudienceReadModel,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {
    this.store = new EventStore(db, 'engine');
    this.processor = new StreamProcessor(
      this.store,
      createRunDecider({ expressions, preferences }),
      { toStored: (event) => ({ type: event.type, data: event }), fromStored: (recorded) => recorded.data as RunEvent },
      (events, _before, after, streamId, now) => ({ ...runEffects(events, after, streamId, now), project: runProjection(events, after, streamId, now) }),
    );
  }

  /** A trigger for one recipient starts a run of the workflow's live version. */
  async startFromTrigger(envelope: Envelope<TriggerAccepted>): Promise<void> {
    const trigger = envelope.payload;
    const workflow = await this.definitions.liveWorkflow(envelope.workspace_id, trigger.workflow);
    const runId = envelope.message_id;
    if (!workflow?.is_enabled) {
      this.logger.warn('trigger dropped: its workflow is no longer live', { run_id: runId, message_id: trigger.message_id, workflow: trigger.workflow });
      return;
    }
    const pinned = pin(workflow);
    const context = await this.context(envelope.workspace_id, pinned, trigger.recipient, runId, trigger.tenant_id);
    await this.step(runStreamId(envelope.workspace_id, runId), startFromTrigger(trigger, { run_id: runId, workflow: pinned, context }));
  }

  /** An event starts every live workflow whose trigger_events name it, one run each. */
  async startFromEvent(envelope: Envelope<EventAccepted>): Promise<void> {
    const event = envelope.payload;
    for (const workflow of await this.definitions.workflowsTriggeredBy(envelope.workspace_id, event.event)) {
      const runId = deterministicUuid(envelope.message_id, workflow.slug);
      const pinned = pin(workflow);
      const recipient: Recipient = { kind: 'user', distinct_id: event.distinct_id, is_transient: false, inline: false, channels: {}, properties: {} };
      const context = await this.context(envelope.workspace_id, pinned, recipient, runId, event.tenant_id);
      await this.step(runStreamId(envelope.workspace_id, runId), startFromEvent(event, { run_id: runId, workflow: pinned, context }));
    }
  }

  async timerFired(streamId: string, timerId: string): Promise<void> {
    const context = await this.contextOfStream(streamId);
    if (context) await this.step(streamId, { type: 'timer_fired', timer_id: timerId, context });
  }

  async httpResponded(streamId: string, requestId: string, response: HttpResponse): Promise<void> {
    const context = await this.contextOfStream(streamId);
    if (context) await this.step(streamId, { type: 'http_responded', request_id: requestId, response, context });
  }

  async deliveryOutcome(workspaceId: string, outcome: DeliveryOutcome): Promise<void> {
    const streamId = runStreamId(workspaceId, outcome.run_id);
    const context = await this.contextOfStream(streamId);
    if (context) await this.step(streamId, { type: 'delivery_outcome', outcome, context });
  }

  async cancel(streamId: string, reason: string): Promise<RunState> {
    const context = await this.contextOfStream(streamId);
    if (!context) return { status: 'new' };
    return (await this.step(streamId, { type: 'cancel', reason, context })).state;
  }

  private async step(streamId: string, input: RunInput): Promise<{ state: RunState }> {
    const step = await this.processor.process(streamId, input, this.clock.now());
    const { workspaceId, runId } = parseRunStreamId(streamId);
    for (const event of step.events) this.logEvent(runId, step.state, event);
    await this.startChildRuns(workspaceId, step.state, step.events);
    return step;
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
    const history = await this.store.readStream(streamId, 0);
    const first = history[0];
    if (!first || first.type !== 'run.started.v1') {
      this.logger.warn('input for a run that has no log; ignored', { stream_id: streamId });
      return undefined;
    }
    const started = first.data as Extract<RunEvent, { type: 'run.started.v1' }>;
    // The run's tenant is the latest override, else the trigger's.
    const override = history.filter((e) => e.type === 'tenant.overridden.v1').pop()?.data as { tenant_id?: string } | undefined;
    const tenantId = override ? override.tenant_id : started.tenant_id;
    const { workspaceId, runId } = parseRunStreamId(streamId);
    return this.context(workspaceId, { slug: started.workflow.slug, definition: started.definition }, started.recipient, runId, tenantId);
  }

  private context(workspaceId: string, workflow: { slug: string; definition: WorkflowDefinition }, recipient: Recipient, runId: string, tenantId?: string): Promise<RunContext> {
    return this.contexts.load(workspaceId, workflow, recipient, runKey(workspaceId, recipient, runId), tenantId);
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
      default:
        this.logger.debug('run event', fields);
    }
  }
}

function pin(workflow: AnnouncedWorkflow): { slug: string; version: number; definition: WorkflowDefinition } {
  return { slug: workflow.slug, version: workflow.version_no, definition: workflow.definition as unknown as WorkflowDefinition };
}

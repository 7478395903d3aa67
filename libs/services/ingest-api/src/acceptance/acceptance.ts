import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AcceptedVia, HeraldError, NormalisedEvent, NormalisedTrigger, TOPICS } from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import {
  AudienceVisibility,
  AuthenticatedWorkspace,
  CLOCK,
  Clock,
  HERALD_CONFIG,
  HERALD_LOGGER,
  HeraldConfig,
  HeraldLogger,
  MESSAGE_BUS,
  refuseInfrastructureFailure,
} from '@herald/runtime';
import { PayloadSchemas } from '../read-models/payload-schemas';
import { LiveWorkflows } from '../read-models/live-workflows';
import { NormalisedBroadcast, NormalisedIdentityEvent } from '../validation';
import { AcceptedMessages, ChunkLimits, broadcastMessages, eventMessages, identityMessages, triggerMessages } from './accepted-messages';
import { IdempotencyClaims } from './idempotency-claims';
import { RequestKind } from './idempotency.repository';

/** Where each kind of request's accepted messages go. */
const ACCEPTED_TOPIC: Record<RequestKind, string> = {
  trigger: TOPICS.triggerChunkAccepted.name,
  event: TOPICS.eventAccepted.name,
  broadcast: TOPICS.broadcastAccepted.name,
};

export interface Accepted {
  readonly messageId: string;
  /** True when an earlier request with the same `$idempotency_key` was accepted and this one started nothing. */
  readonly repeat: boolean;
}

/**
 * The one way in for triggers, events and identity events, whichever door they came through (REST,
 * bulk, the Kafka ingress). A request is accepted when `bus.publish` has resolved,
 * which on Kafka means acknowledged by all in-sync replicas and in the embedded mode
 * written to the bus journal: only then does the client get its 2xx.
 */
@Injectable()
export class Acceptance {
  private readonly chunkLimits: ChunkLimits;

  constructor(
    private readonly workflows: LiveWorkflows,
    private readonly schemas: PayloadSchemas,
    private readonly idempotency: IdempotencyClaims,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(HERALD_CONFIG) config: HeraldConfig,
    private readonly audienceVisibility: AudienceVisibility,
  ) {
    this.chunkLimits = { partitions: config.topicPartitions, maxMessageBytes: config.busMaxMessageBytes };
  }

  /**
   * `proposedMessageId` is the id a first acceptance gets: random for REST, derived from
   * the topic position for the Kafka ingress (a redelivery then republishes the same ids).
   */
  async acceptTrigger(workspace: AuthenticatedWorkspace, trigger: NormalisedTrigger, via: AcceptedVia, proposedMessageId: string = randomUUID()): Promise<Accepted> {
    // A legacy dynamic-workflow trigger carries its own workflow: there is none to look up.
    if (trigger.inline_workflow === undefined) {
      const workflow = await this.infrastructure('reading the workflow read model', () => this.workflows.find(workspace.id, trigger.workflow));
      if (workflow === null) throw HeraldError.notFound(`workflow '${trigger.workflow}' not found`);
      if (!workflow.isEnabled) throw HeraldError.notFound(`workflow '${trigger.workflow}' is disabled`);
      const link = workflow.payloadSchema;
      if (link) {
        const problems = await this.infrastructure('reading the payload schema read model', () => this.schemas.problems(workspace.id, link, trigger.data));
        if (problems.length > 0) throw HeraldError.validation(problems);
      }
    }
    const accepted = await this.once(workspace, 'trigger', trigger.idempotency_key, proposedMessageId, (messageId) =>
      triggerMessages(workspace, trigger, messageId, via, this.clock.now(), this.chunkLimits),
    );
    this.logger.info(accepted.repeat ? 'trigger repeated; answered with the first message_id' : 'trigger accepted', {
      workspace_id: workspace.id,
      message_id: accepted.messageId,
      workflow: trigger.workflow,
      recipients: trigger.recipients.length,
      via,
    });
    return accepted;
  }

  async acceptEvent(workspace: AuthenticatedWorkspace, event: NormalisedEvent, via: AcceptedVia, proposedMessageId: string = randomUUID()): Promise<Accepted> {
    const link = await this.infrastructure('reading the event schema links', () => this.schemas.eventLink(workspace.id, event.event));
    if (link) {
      const problems = await this.infrastructure('reading the payload schema read model', () => this.schemas.problems(workspace.id, link, event.properties, 'properties'));
      if (problems.length > 0) throw HeraldError.validation(problems);
    }
    const accepted = await this.once(workspace, 'event', event.idempotency_key, proposedMessageId, (messageId) =>
      eventMessages(workspace, event, messageId, via, this.clock.now()),
    );
    this.logger.info(accepted.repeat ? 'event repeated; answered as accepted' : 'event accepted', {
      workspace_id: workspace.id,
      message_id: accepted.messageId,
      event: event.event,
      via,
    });
    return accepted;
  }

  /**
   * An identity event of the SDKs (`$user_operations`): published as a `user_operations`
   * profile change. It shares `/event/`, and so the idempotency keys of events.
   */
  async acceptIdentityEvent(workspace: AuthenticatedWorkspace, identity: NormalisedIdentityEvent, via: AcceptedVia, proposedMessageId: string = randomUUID()): Promise<Accepted> {
    const accepted = await this.once(workspace, 'event', identity.idempotency_key, proposedMessageId, (messageId) =>
      identityMessages(workspace, identity, messageId, this.clock.now()),
    );
    this.logger.info(accepted.repeat ? 'identity event repeated; answered as accepted' : 'identity event accepted', {
      workspace_id: workspace.id,
      message_id: accepted.messageId,
      operations: identity.operations.length,
      via,
    });
    // Read-your-writes: answered once the engine holds the profile it made (a repeat's
    // original was waited for by its own request, and its acknowledgement is long gone).
    if (!accepted.repeat) await this.audienceVisibility.waitUntilApplied([accepted.messageId], 'identity event');
    return accepted;
  }

  /** A broadcast to a subscriber list: preference-service, which knows the members, fans it out. */
  async acceptBroadcast(workspace: AuthenticatedWorkspace, broadcast: NormalisedBroadcast, proposedMessageId: string = randomUUID()): Promise<Accepted> {
    const accepted = await this.once(workspace, 'broadcast', broadcast.idempotency_key, proposedMessageId, (messageId) =>
      broadcastMessages(workspace, broadcast, messageId, this.clock.now()),
    );
    this.logger.info(accepted.repeat ? 'broadcast repeated; answered as accepted' : 'broadcast accepted', {
      workspace_id: workspace.id,
      message_id: accepted.messageId,
      list_id: broadcast.list_id,
    });
    return accepted;
  }

  private async once(
    workspace: AuthenticatedWorkspace,
    kind: RequestKind,
    idempotencyKey: string | undefined,
    proposedMessageId: string,
    build: (messageId: string) => AcceptedMessages,
  ): Promise<Accepted> {
    if (idempotencyKey === undefined) {
      await this.publish(kind, build(proposedMessageId));
      return { messageId: proposedMessageId, repeat: false };
    }
    const claim = await this.infrastructure('claiming the idempotency key', () => this.idempotency.claim(workspace.id, kind, idempotencyKey, proposedMessageId));
    if (claim.kind === 'repeat') return { messageId: claim.messageId, repeat: true };
    try {
      await this.publish(kind, build(claim.messageId));
    } catch (error) {
      await this.idempotency.release(workspace.id, kind, idempotencyKey, claim.messageId).catch((releaseError: Error) =>
        // The claim stays pending; the next request takes it over after the lease.
        this.logger.warn('could not release an idempotency claim', { message_id: claim.messageId, err: releaseError.message }),
      );
      throw error;
    }
    try {
      await this.idempotency.markAccepted(workspace.id, kind, idempotencyKey, claim.messageId);
    } catch (error) {
      // The messages are in the bus, so the request is accepted. A repeat after the lease
      // republishes the same ids, which consumers dedupe.
      this.logger.warn('accepted, but could not mark the idempotency claim accepted', { message_id: claim.messageId, err: (error as Error).message });
    }
    return { messageId: claim.messageId, repeat: false };
  }

  /**
   * A database failure is Herald's, not the client's: never a 500. A saturated database
   * pushes back (429, Retry-After), an unreachable one is a 503 (`databaseRefusal`).
   */
  private async infrastructure<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof HeraldError) throw error;
      throw refuseInfrastructureFailure(this.logger, what, error);
    }
  }

  /** Inline profile data first: a failure after it is harmless on retry (an upsert), one before the trigger is not. */
  private async publish(kind: RequestKind, messages: AcceptedMessages): Promise<void> {
    try {
      if (messages.audience.length > 0) await this.bus.publish(TOPICS.audienceChanged.name, messages.audience);
      // An identity event is a profile change only: nothing to run.
      if (messages.accepted.length > 0) await this.bus.publish(ACCEPTED_TOPIC[kind], messages.accepted);
    } catch (error) {
      // The embedded bus journals to the database, so its publish can meet a saturated pool too.
      throw refuseInfrastructureFailure(this.logger, 'publishing to the bus', error, 'message bus');
    }
  }
}

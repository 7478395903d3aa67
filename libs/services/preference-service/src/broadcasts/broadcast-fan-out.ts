import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import {
  BROADCAST_ACCEPTED_TYPE,
  BroadcastAccepted,
  Envelope,
  InlineChannels,
  JsonRecord,
  TOPICS,
  TRIGGER_ACCEPTED_TYPE,
  TRIGGER_ACCEPTED_VERSION,
  TriggerAccepted,
  UserRecipient,
  deterministicUuid,
  envelopeMessage,
  envelopeOf,
  parseBroadcastAccepted,
  profileLocaleAndTimezone,
} from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { BusMessageContext, CLOCK, Clock, ConsumerOf, HERALD_LOGGER, HeraldLogger, MESSAGE_BUS } from '@herald/runtime';
import { broadcastWorkflow } from '@herald/workflow';
import { BroadcastMember, ListRepository } from '../lists/list.repository';
import { JsonObject, mergeProfiles } from '../profiles/profile-document';

/** Settings of the fan-out; the defaults suit production, tests shrink the page to cross page boundaries with small lists. */
export interface BroadcastFanOutOptions {
  /** Members read and published per round: bounded memory for any list size. */
  readonly pageSize: number;
}

export const DEFAULT_BROADCAST_FAN_OUT_OPTIONS: BroadcastFanOutOptions = { pageSize: 500 };

export const BROADCAST_FAN_OUT_OPTIONS = Symbol('BROADCAST_FAN_OUT_OPTIONS');

/**
 * Fans a broadcast out to the members of its list, as preference-service knows them
 * when the broadcast is handled: one `trigger.accepted` per member, keyed by the member,
 * carrying the broadcast's inline workflow. Ids derive from the broadcast and the
 * member, so a redelivered broadcast (a crash mid-list) starts nobody twice.
 */
@Controller()
export class BroadcastFanOut {
  constructor(
    private readonly lists: ListRepository,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(BROADCAST_FAN_OUT_OPTIONS) private readonly options: BroadcastFanOutOptions,
  ) {}

  @ConsumerOf({ groupId: 'herald.audience.broadcasts', topics: [TOPICS.broadcastAccepted.name], messages: { type: BROADCAST_ACCEPTED_TYPE, parsePayload: parseBroadcastAccepted } })
  async read(@Payload() _broadcast: BroadcastAccepted, @Ctx() context: BusMessageContext<Envelope<BroadcastAccepted>>): Promise<void> {
    await this.fanOut(context.envelope);
  }

  private async fanOut(envelope: Envelope<BroadcastAccepted>): Promise<void> {
    const broadcast = envelope.payload;
    const workspaceId = envelope.workspace_id;
    const workflow = broadcastWorkflow(broadcast);
    const count = await this.lists.memberCount(workspaceId, broadcast.list_id);
    let after = '0';
    let index = 0;
    for (;;) {
      // With each member's stored profile (the tenant's merged over the global one): the
      // engine's copy of it may not have caught up with a user saved just before.
      const members = await this.lists.broadcastMembers(workspaceId, broadcast.list_id, broadcast.tenant_id ?? '', after, this.options.pageSize);
      if (members.length === 0) break;
      const now = this.clock.now();
      await this.bus.publish(
        TOPICS.triggerAccepted.name,
        members.map((member) => {
          const payload: TriggerAccepted = {
            message_id: broadcast.message_id,
            recipient_index: index++,
            recipient_count: Math.max(count, index),
            workspace_slug: broadcast.workspace_slug,
            workflow: workflow.slug,
            recipient: memberRecipient(member),
            data: broadcast.data,
            attachments: [],
            ...(broadcast.tenant_id ? { tenant_id: broadcast.tenant_id } : {}),
            ...(broadcast.idempotency_key ? { idempotency_key: broadcast.idempotency_key } : {}),
            accepted_via: 'api',
            accepted_at: broadcast.accepted_at,
            inline_workflow: { slug: workflow.slug, version: workflow.version, definition: workflow.definition as unknown as JsonRecord },
          };
          const id = deterministicUuid(broadcast.message_id, 'member', member.distinct_id);
          return envelopeMessage(`${workspaceId}:${member.distinct_id}`, envelopeOf(TRIGGER_ACCEPTED_TYPE, TRIGGER_ACCEPTED_VERSION, id, workspaceId, now, payload));
        }),
      );
      after = members[members.length - 1].id;
    }
    this.logger.info('broadcast fanned out', { message_id: broadcast.message_id, list_id: broadcast.list_id, members: index });
  }
}

/**
 * A member as the run's recipient, carrying its stored profile as of the fan-out. Not
 * `inline`: nothing is written back to the profile. Without a stored profile the engine
 * falls back to its own copy.
 */
function memberRecipient(member: BroadcastMember): UserRecipient {
  const stored = member.global_properties === null ? undefined : mergeProfiles(
    { properties: member.global_properties as JsonObject, channels: member.global_channels ?? {} },
    member.tenant_properties === null ? undefined : { properties: member.tenant_properties as JsonObject, channels: member.tenant_channels ?? {} },
  );
  const properties = (stored?.properties ?? {}) as JsonRecord;
  return {
    kind: 'user',
    distinct_id: member.distinct_id,
    is_transient: false,
    inline: false,
    channels: (stored?.channels ?? {}) as InlineChannels,
    properties,
    ...profileLocaleAndTimezone(properties),
  };
}

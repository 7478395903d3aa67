import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  BROADCAST_ACCEPTED_TYPE,
  BroadcastAccepted,
  Envelope,
  JsonRecord,
  TOPICS,
  TRIGGER_ACCEPTED_TYPE,
  TRIGGER_ACCEPTED_VERSION,
  TriggerAccepted,
  deterministicUuid,
  envelopeOf,
  parseBroadcastAccepted,
} from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { CLOCK, Clock, ConsumerRegistry, HERALD_LOGGER, HeraldLogger, MESSAGE_BUS } from '@herald/runtime';
import { broadcastWorkflow } from '@herald/workflow';

/** Members read and published per round: bounded memory for any list size. */
const PAGE = 500;

/**
 * Fans a broadcast out to the members of its list, as preference-service knows them
 * when the broadcast is handled: one `trigger.accepted` per member, keyed by the member,
 * carrying the broadcast's inline workflow. Ids derive from the broadcast and the
 * member, so a redelivered broadcast (a crash mid-list) starts nobody twice.
 */
@Injectable()
export class BroadcastFanOut implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource('audience') private readonly db: DataSource,
    private readonly consumers: ConsumerRegistry,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.consumers.consume([TOPICS.broadcastAccepted.name], {
      groupId: 'herald.audience.broadcasts',
      type: BROADCAST_ACCEPTED_TYPE,
      parsePayload: parseBroadcastAccepted,
      handle: (_broadcast, envelope) => this.fanOut(envelope),
    });
  }

  private async fanOut(envelope: Envelope<BroadcastAccepted>): Promise<void> {
    const broadcast = envelope.payload;
    const workspaceId = envelope.workspace_id;
    const workflow = broadcastWorkflow(broadcast);
    const [{ count }] = (await this.db.query(`SELECT count(*)::int AS count FROM audience.list_subscribers WHERE workspace_id = $1 AND list_id = $2`, [
      workspaceId,
      broadcast.list_id,
    ])) as Array<{ count: number }>;
    let after = '0';
    let index = 0;
    for (;;) {
      const members = (await this.db.query(
        `SELECT id::text AS id, distinct_id FROM audience.list_subscribers WHERE workspace_id = $1 AND list_id = $2 AND id > $3::bigint ORDER BY id LIMIT ${PAGE}`,
        [workspaceId, broadcast.list_id, after],
      )) as Array<{ id: string; distinct_id: string }>;
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
            recipient: { kind: 'user', distinct_id: member.distinct_id, is_transient: false, inline: false, channels: {}, properties: {} },
            data: broadcast.data,
            attachments: [],
            ...(broadcast.tenant_id ? { tenant_id: broadcast.tenant_id } : {}),
            ...(broadcast.idempotency_key ? { idempotency_key: broadcast.idempotency_key } : {}),
            accepted_via: 'api',
            accepted_at: broadcast.accepted_at,
            inline_workflow: { slug: workflow.slug, version: workflow.version, definition: workflow.definition as unknown as JsonRecord },
          };
          const id = deterministicUuid(broadcast.message_id, 'member', member.distinct_id);
          return {
            key: `${workspaceId}:${member.distinct_id}`,
            value: JSON.stringify(envelopeOf(TRIGGER_ACCEPTED_TYPE, TRIGGER_ACCEPTED_VERSION, id, workspaceId, now, payload)),
            headers: { 'message-id': id },
          };
        }),
      );
      after = members[members.length - 1].id;
    }
    this.logger.info('broadcast fanned out', { message_id: broadcast.message_id, list_id: broadcast.list_id, members: index });
  }
}

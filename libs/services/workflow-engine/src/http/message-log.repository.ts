import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Brackets, DataSource, In, Repository, SelectQueryBuilder } from 'typeorm';
import { Channel } from '@herald/contracts';
import { LoggedMessage, LoggedMessageEntity } from '../persistence/entities';

/** Filters of `GET /v1/message/`, all ANDed; a list matches any of its values. */
export interface MessageFilter {
  readonly statuses?: readonly string[];
  readonly channel?: string;
  readonly distinctIds?: readonly string[];
  readonly categories?: readonly string[];
  readonly workflowSlug?: string;
  readonly runId?: string;
  readonly idempotencyKey?: string;
  readonly tenantId?: string;
  readonly objectType?: string;
  readonly objectId?: string;
  /** A message's own id, or the id of the trigger it came from (both UUIDs that never collide). */
  readonly messageOrTriggerId?: string;
  readonly createdFrom?: Date;
  readonly createdTo?: Date;
}

/** Where a page starts: after (newer first) or before the message at this place. */
export interface MessageCursor {
  readonly createdAt: string;
  readonly deliveryId: string;
}

/** A page of the message log, newest first, with how many messages match in all. */
export interface MessagePage {
  readonly count: number;
  readonly messages: readonly LoggedMessage[];
  /** Newer messages than the page's first: a `before` cursor reads them (false on an empty page). */
  readonly hasPrev: boolean;
  /** Older messages than the page's last: an `after` cursor reads them (false on an empty page). */
  readonly hasNext: boolean;
}

/** Where a message stands, for a change that depends on it (the bulk update's seen and clicked, a web push engagement report). */
export interface MessageStanding {
  readonly deliveryId: string;
  readonly runId: string;
  readonly messageId: string;
  readonly channel: Channel;
  readonly status: string;
}

/**
 * The message log (`engine.messages`) as the HTTP side and the engagement consumers read
 * it, always within one workspace. The run projection writes it in the append's transaction.
 */
@Injectable()
export class MessageLogRepository {
  constructor(@InjectDataSource('engine') private readonly db: DataSource) {}

  /** The workspace's messages among `deliveryIds` (the ids clients know messages by), in no particular order; unknown ids are left out. */
  async standings(workspaceId: string, deliveryIds: readonly string[]): Promise<MessageStanding[]> {
    if (deliveryIds.length === 0) return [];
    const rows = await this.messages().find({
      select: { deliveryId: true, runId: true, messageId: true, channel: true, status: true },
      where: { workspaceId, deliveryId: In([...deliveryIds]) },
    });
    return rows.map((row) => ({ deliveryId: row.deliveryId, runId: row.runId, messageId: row.messageId, channel: row.channel as Channel, status: row.status }));
  }

  /**
   * `GET /v1/message/`'s page: up to `limit` matching messages from `cursor` on (older ones,
   * or with `newerFirst` false the newer ones before it), answered newest first, and whether
   * there are more on either side.
   */
  async list(workspaceId: string, filter: MessageFilter, cursor: MessageCursor | undefined, newerFirst: boolean, limit: number): Promise<MessagePage> {
    const count = await this.count(workspaceId, filter);
    // One more than the page holds tells whether there are more past it.
    const rows = await this.page(workspaceId, filter, cursor, newerFirst, limit + 1);
    const more = rows.length > limit;
    const messages = newerFirst ? rows.slice(0, limit) : rows.slice(0, limit).reverse();
    const found = messages.length > 0;
    return {
      count,
      messages,
      hasPrev: found && (newerFirst ? cursor !== undefined : more),
      hasNext: found && (newerFirst ? more : cursor !== undefined),
    };
  }

  /** How many of the workspace's messages match. */
  count(workspaceId: string, filter: MessageFilter): Promise<number> {
    return this.filtered(workspaceId, filter).getCount();
  }

  /**
   * Up to `limit` matching messages from `cursor` on: newest first, or (`newerFirst` false)
   * oldest first from the cursor, as a `before` page reads them.
   */
  page(workspaceId: string, filter: MessageFilter, cursor: MessageCursor | undefined, newerFirst: boolean, limit: number): Promise<LoggedMessage[]> {
    const query = this.filtered(workspaceId, filter);
    if (cursor) {
      query.andWhere(`(message.createdAt, message.deliveryId) ${newerFirst ? '<' : '>'} (CAST(:cursorAt AS timestamptz), :cursorId)`, { cursorAt: cursor.createdAt, cursorId: cursor.deliveryId });
    }
    const order = newerFirst ? 'DESC' : 'ASC';
    return query.orderBy('message.createdAt', order).addOrderBy('message.deliveryId', order).take(limit).getMany();
  }

  /** Every message of these runs, oldest first. */
  async ofRuns(workspaceId: string, runIds: readonly string[]): Promise<LoggedMessage[]> {
    if (runIds.length === 0) return [];
    return this.messages().find({ where: { workspaceId, runId: In([...runIds]) }, order: { createdAt: 'ASC', deliveryId: 'ASC' } });
  }

  private filtered(workspaceId: string, filter: MessageFilter): SelectQueryBuilder<LoggedMessage> {
    const query = this.messages().createQueryBuilder('message').where('message.workspaceId = :workspaceId', { workspaceId });
    const equal = { channel: filter.channel, workflowSlug: filter.workflowSlug, runId: filter.runId, idempotencyKey: filter.idempotencyKey, tenantId: filter.tenantId, objectType: filter.objectType, objectId: filter.objectId };
    for (const [property, value] of Object.entries(equal)) if (value !== undefined) query.andWhere(`message.${property} = :${property}`, { [property]: value });
    const anyOf = { status: filter.statuses, distinctId: filter.distinctIds, category: filter.categories };
    for (const [property, values] of Object.entries(anyOf)) if (values !== undefined && values.length > 0) query.andWhere(`message.${property} IN (:...${property}Values)`, { [`${property}Values`]: [...values] });
    if (filter.messageOrTriggerId !== undefined) {
      const id = filter.messageOrTriggerId;
      query.andWhere(new Brackets((either) => either.where('message.deliveryId = :id', { id }).orWhere('message.messageId = :id', { id })));
    }
    if (filter.createdFrom) query.andWhere('message.createdAt >= :createdFrom', { createdFrom: filter.createdFrom });
    if (filter.createdTo) query.andWhere('message.createdAt <= :createdTo', { createdTo: filter.createdTo });
    return query;
  }

  private messages(): Repository<LoggedMessage> {
    return this.db.getRepository(LoggedMessageEntity);
  }
}

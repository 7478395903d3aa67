import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, FindOptionsWhere, In, Repository } from 'typeorm';
import { SuppressionChanged, SuppressionReason, suppressionChangedMessage } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { OffsetPage } from '../http/offset-page';
import { MANAGEMENT_OUTBOX } from '../management-events/management-events';
import { ScopedWorkspace } from '../workspaces/workspace-scope';

/** The channels whose sends skip suppressed addresses (the dispatchers check these). */
export const SUPPRESSIBLE_CHANNELS = ['email', 'sms', 'whatsapp'] as const;
export type SuppressibleChannel = (typeof SUPPRESSIBLE_CHANNELS)[number];

/** An address on a workspace's suppression list, as management's copy holds it. */
export interface Suppression {
  workspaceId: string;
  channel: string;
  /** As sends compare it (`suppressionAddress`): an email lower-cased, a phone number with its `+`. */
  address: string;
  reason: string;
  detail: string | null;
  /** `<channel>/<vendor>` whose callback reported it; null for the API's. */
  vendor: string | null;
  createdAt: Date;
}

/** `management.suppressions` (created by the migrations, never by TypeORM): each column typed once, here. */
export const SuppressionEntity = new EntitySchema<Suppression>({
  name: 'Suppression',
  schema: 'management',
  tableName: 'suppressions',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    channel: { type: 'text', primary: true },
    address: { type: 'text', primary: true },
    reason: { type: 'text' },
    detail: { type: 'text', nullable: true },
    vendor: { type: 'text', nullable: true },
    createdAt: { name: 'created_at', type: 'timestamptz' },
  },
});

/** Which entries a list shows: one channel, and the forms an address may take (any of them matches). */
export interface SuppressionFilter {
  readonly channel?: SuppressibleChannel;
  readonly addresses?: readonly string[];
}

/**
 * management's copy of the workspaces' suppression lists. The API's changes are written
 * here and announced on `notify.suppression.changed.v1` through the outbox in one
 * transaction (the dispatchers apply them); every change on the topic (theirs: bounces
 * and complaints; and these same ones, coming back) is applied again in topic order, so
 * this copy and the dispatchers' end at the topic's last word on each address.
 */
@Injectable()
export class SuppressionRepository {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** A page of the workspace's suppressions, newest first, and how many match in all. */
  async list(workspace: ScopedWorkspace, filter: SuppressionFilter, page: OffsetPage): Promise<{ count: number; suppressions: Suppression[] }> {
    const where: FindOptionsWhere<Suppression> = {
      workspaceId: workspace.id,
      ...(filter.channel ? { channel: filter.channel } : {}),
      ...(filter.addresses ? { address: In([...filter.addresses]) } : {}),
    };
    const [suppressions, count] = await this.suppressions().findAndCount({
      where,
      order: { createdAt: 'DESC', channel: 'ASC', address: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { count, suppressions };
  }

  find(workspace: ScopedWorkspace, channel: SuppressibleChannel, address: string): Promise<Suppression | null> {
    return this.suppressions().findOne({ where: { workspaceId: workspace.id, channel, address } });
  }

  /** Puts the address on the list (an entry already there takes the new reason and detail), and announces it. */
  async add(workspace: ScopedWorkspace, channel: SuppressibleChannel, address: string, reason: SuppressionReason, detail: string | null): Promise<Suppression> {
    const change: SuppressionChanged = {
      workspace_id: workspace.id,
      channel,
      address,
      change: 'added',
      reason,
      ...(detail === null ? {} : { detail }),
      at: this.clock.now().toISOString(),
    };
    return this.db.transaction(async (tx) => {
      await this.applyIn(tx, change);
      await writeOutbox(tx, MANAGEMENT_OUTBOX, [suppressionChangedMessage(change)]);
      const saved = await this.suppressions(tx).findOneOrFail({ where: { workspaceId: workspace.id, channel, address } });
      return saved;
    });
  }

  /** Takes the address off the list and announces it; false when it was not on it. */
  async remove(workspace: ScopedWorkspace, channel: SuppressibleChannel, address: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      // Locked, so of two concurrent removals only one finds the entry and announces it.
      const entry = await this.suppressions(tx).findOne({ where: { workspaceId: workspace.id, channel, address }, lock: { mode: 'pessimistic_write' } });
      if (!entry) return false;
      const change: SuppressionChanged = { workspace_id: workspace.id, channel, address, change: 'removed', at: this.clock.now().toISOString() };
      await this.applyIn(tx, change);
      await writeOutbox(tx, MANAGEMENT_OUTBOX, [suppressionChangedMessage(change)]);
      return true;
    });
  }

  /** A change read from the topic (idempotent: the API's own changes come back this way). */
  apply(change: SuppressionChanged): Promise<void> {
    return this.db.transaction((tx) => this.applyIn(tx, change));
  }

  private async applyIn(tx: EntityManager, change: SuppressionChanged): Promise<void> {
    const key = { workspaceId: change.workspace_id, channel: change.channel, address: change.address };
    if (change.change === 'removed') {
      await this.suppressions(tx).delete(key);
      return;
    }
    // An address already listed keeps when it was first listed; what it says now replaces what it said.
    await this.suppressions(tx)
      .createQueryBuilder()
      .insert()
      .values({ ...key, reason: change.reason ?? 'manual', detail: change.detail ?? null, vendor: change.vendor ?? null, createdAt: new Date(change.at) })
      .orUpdate(['reason', 'detail', 'vendor'], ['workspace_id', 'channel', 'address'])
      .execute();
  }


  private suppressions(manager: EntityManager = this.db.manager): Repository<Suppression> {
    return manager.getRepository(SuppressionEntity);
  }
}

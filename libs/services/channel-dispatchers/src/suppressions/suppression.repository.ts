import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, In, Repository } from 'typeorm';
import { Channel, SuppressionChanged } from '@herald/contracts';

/** An address a workspace's sends on a channel skip, as this service's copy of the list holds it. */
export interface SuppressedAddress {
  workspaceId: string;
  channel: Channel;
  /** As sends compare it (`suppressionAddress`): an email lower-cased, a phone number as the vendor had it. */
  address: string;
  reason: string;
  detail: string | null;
  vendor: string | null;
  createdAt: Date;
}

/** `dispatch.suppressions` (created by the migrations, never by TypeORM). */
export const SuppressedAddressEntity = new EntitySchema<SuppressedAddress>({
  name: 'SuppressedAddress',
  schema: 'dispatch',
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

/**
 * `dispatch.suppressions`: this service's copy of each workspace's suppression list, kept
 * from `notify.suppression.changed.v1` (and written at once for its own bounces).
 */
@Injectable()
export class SuppressionRepository {
  constructor(@InjectDataSource('dispatch') private readonly db: DataSource) {}

  /** Up to `limit` entries of the workspace's list for the channel, in no particular order. */
  async listOf(workspaceId: string, channel: Channel, limit: number): Promise<SuppressedAddress[]> {
    return this.entries().find({ where: { workspaceId, channel }, take: limit });
  }

  /** The entries among `addresses`. */
  async among(workspaceId: string, channel: Channel, addresses: readonly string[]): Promise<SuppressedAddress[]> {
    if (addresses.length === 0) return [];
    return this.entries().find({ where: { workspaceId, channel, address: In([...addresses]) } });
  }

  /**
   * Applies a change: an addition (or a new reason for a listed address) or a removal.
   * Idempotent, so a change read twice (the shared group and this replica's own) is one.
   * In `tx` when given (a callback's own write of its bounce), else on its own.
   */
  async apply(change: SuppressionChanged, tx?: EntityManager): Promise<void> {
    const entries = this.entries(tx);
    if (change.change === 'removed') {
      await entries.delete({ workspaceId: change.workspace_id, channel: change.channel, address: change.address });
      return;
    }
    // The first listing's time is kept: an address bounced again keeps when it was first listed.
    await entries
      .createQueryBuilder()
      .insert()
      .values({
        workspaceId: change.workspace_id,
        channel: change.channel,
        address: change.address,
        reason: change.reason ?? 'manual',
        detail: change.detail ?? null,
        vendor: change.vendor ?? null,
        createdAt: new Date(change.at),
      })
      .orUpdate(['reason', 'detail', 'vendor'], ['workspace_id', 'channel', 'address'])
      .execute();
  }

  private entries(manager: EntityManager = this.db.manager): Repository<SuppressedAddress> {
    return manager.getRepository(SuppressedAddressEntity);
  }
}

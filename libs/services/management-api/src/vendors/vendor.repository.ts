import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, EntitySchema, IsNull, Not, Repository } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { HeraldError } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { OffsetPage } from '../http/offset-page';
import { MANAGEMENT_OUTBOX, definitionChangedMessage } from '../management-events/management-events';
import { ScopedWorkspace, lockWorkspaceForWrites } from '../workspaces/workspace-scope';
import { VendorSpec, vendorSpecOf } from './vendor-catalogue';
import { VendorCredentials } from './vendor-credentials';
import { VendorChange, parseNewVendor, parseVendorUpdate } from './vendor-change';
import { VendorSettings } from './request-bodies';

/** A workspace's vendor as stored. A deleted one keeps its row (id, version), without credentials. */
export interface StoredVendor {
  id: string;
  workspaceId: string;
  channel: string;
  vendor: string;
  isEnabled: boolean;
  priority: number;
  /** Set only when it overrides the vendor's default. */
  baseUrl: string | null;
  settings: VendorSettings;
  credentialsSealed: Buffer | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

/** `management.vendors` (created by the migrations, never by TypeORM): each column typed once, here. */
export const VendorEntity = new EntitySchema<StoredVendor>({
  name: 'Vendor',
  schema: 'management',
  tableName: 'vendors',
  columns: {
    id: { type: 'uuid', primary: true },
    workspaceId: { name: 'workspace_id', type: 'uuid' },
    channel: { type: 'text' },
    vendor: { type: 'text' },
    isEnabled: { name: 'is_enabled', type: 'boolean' },
    priority: { type: 'integer' },
    baseUrl: { name: 'base_url', type: 'text', nullable: true },
    settings: { type: 'jsonb' },
    credentialsSealed: { name: 'credentials_sealed', type: 'bytea', nullable: true },
    version: { type: 'integer' },
    createdAt: { name: 'created_at', type: 'timestamptz' },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
    deletedAt: { name: 'deleted_at', type: 'timestamptz', nullable: true },
  },
});

/**
 * The document of a vendor's `definition.changed` message: the whole configuration the
 * dispatchers need, its credentials still sealed (base64 of the SecretBox blob, opened
 * with HERALD_SECRETS_KEY and the associated data `vendor:<id>`).
 */
export interface VendorDocument {
  readonly id: string;
  readonly channel: string;
  readonly vendor: string;
  readonly is_enabled: boolean;
  readonly priority: number;
  /** The API base URL the dispatchers call: the override, else the vendor's default. */
  readonly base_url: string | null;
  readonly settings: Record<string, unknown>;
  readonly credentials_sealed: string;
  readonly version: number;
}

/**
 * The vendors of workspaces, with sealed credentials. Writes of one workspace take
 * turns (its row is locked, so a write's reads see every earlier write) and each is
 * announced on definition.changed in its transaction. Every write bumps the row's
 * version and updated_at (the database's now()), and answers the row as written.
 */
@Injectable()
export class VendorRepository {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    private readonly credentials: VendorCredentials,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The live vendors (of one channel, or all), ordered by channel, then priority (the fallback order), then vendor. */
  async list(workspace: ScopedWorkspace, onlyChannel: string | null, page: OffsetPage): Promise<{ count: number; vendors: StoredVendor[] }> {
    const [vendors, count] = await this.vendors().findAndCount({
      where: { workspaceId: workspace.id, deletedAt: IsNull(), ...(onlyChannel === null ? {} : { channel: onlyChannel }) },
      order: { channel: 'ASC', priority: 'ASC', vendor: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { count, vendors };
  }

  /** The live vendor, or 404. */
  async get(workspace: ScopedWorkspace, spec: VendorSpec): Promise<StoredVendor> {
    const vendor = await this.vendors().findOne({ where: { workspaceId: workspace.id, channel: spec.channel, vendor: spec.vendor, deletedAt: IsNull() } });
    if (!vendor) throw notConfigured(spec);
    return vendor;
  }

  /**
   * Configures the vendor (the body validated with the path's vendor, vendor-change.ts):
   * `created` when it was not configured (or had been deleted), else it was updated.
   */
  async put(workspace: ScopedWorkspace, spec: VendorSpec, body: unknown): Promise<{ vendor: StoredVendor; created: boolean }> {
    return this.db.transaction(async (tx) => {
      await lockWorkspaceForWrites(tx, workspace.id);
      const existing = await this.vendors(tx).findOne({ where: { workspaceId: workspace.id, channel: spec.channel, vendor: spec.vendor } });
      const live = existing?.deletedAt === null ? existing : undefined;
      const written = live
        ? await this.update(tx, workspace, spec, live, parseVendorUpdate(body, spec, this.credentials.open(live.id, sealedOf(live))))
        : await this.create(tx, workspace, spec, existing ?? undefined, body);
      await this.announce(tx, workspace, written, 'upserted');
      return { vendor: written, created: !live };
    });
  }

  /** Deletes the live vendor (404 when there is none), announcing it. */
  async remove(workspace: ScopedWorkspace, spec: VendorSpec): Promise<void> {
    await this.db.transaction(async (tx) => {
      await lockWorkspaceForWrites(tx, workspace.id);
      const live = await this.vendors(tx).findOne({
        select: { id: true },
        where: { workspaceId: workspace.id, channel: spec.channel, vendor: spec.vendor, deletedAt: IsNull() },
      });
      if (!live) throw notConfigured(spec);
      // The row stays (its version must keep increasing); the secrets of a removed vendor do not.
      const removed = await this.write(tx, live.id, { deletedAt: () => 'now()', credentialsSealed: null });
      await this.announce(tx, workspace, removed, 'deleted');
    });
  }

  /** The API base URL the dispatchers call: the override, else the vendor's default. */
  baseUrl(vendor: StoredVendor): string | null {
    return vendor.baseUrl ?? vendorSpecOf(vendor.channel, vendor.vendor).defaultBaseUrl(this.credentials.open(vendor.id, sealedOf(vendor)));
  }

  /** A first configuration, or a new one of a deleted vendor (which keeps its row, id and version count). */
  private async create(tx: EntityManager, workspace: ScopedWorkspace, spec: VendorSpec, deleted: StoredVendor | undefined, body: unknown): Promise<StoredVendor> {
    const change = parseNewVendor(body, spec);
    await refuseTakenPriority(tx, workspace, spec, change.priority);
    const id = deleted?.id ?? randomUUID();
    const fields = {
      isEnabled: change.is_enabled ?? true,
      priority: change.priority,
      baseUrl: change.base_url ?? null,
      settings: change.settings ?? {},
      credentialsSealed: this.credentials.seal(id, change.credentials),
    };
    if (deleted) return this.write(tx, id, { ...fields, createdAt: () => 'now()', deletedAt: null });
    // version, created_at and updated_at take the table's defaults (1, now()).
    await this.vendors(tx).insert({ id, workspaceId: workspace.id, channel: spec.channel, vendor: spec.vendor, ...fields });
    return this.vendors(tx).findOneByOrFail({ id });
  }

  private async update(tx: EntityManager, workspace: ScopedWorkspace, spec: VendorSpec, live: StoredVendor, change: VendorChange): Promise<StoredVendor> {
    const priority = change.priority ?? live.priority;
    if (priority !== live.priority) await refuseTakenPriority(tx, workspace, spec, priority);
    return this.write(tx, live.id, {
      isEnabled: change.is_enabled ?? live.isEnabled,
      priority,
      baseUrl: change.base_url === undefined ? live.baseUrl : change.base_url,
      settings: change.settings ?? live.settings,
      credentialsSealed: change.credentials ? this.credentials.seal(live.id, change.credentials) : live.credentialsSealed,
    });
  }

  /** Changes the row, bumping its version and updated_at as every change does, and answers it as written. */
  private async write(tx: EntityManager, id: string, changes: QueryDeepPartialEntity<StoredVendor>): Promise<StoredVendor> {
    await this.vendors(tx).update({ id }, { ...changes, version: () => 'version + 1', updatedAt: () => 'now()' });
    return this.vendors(tx).findOneByOrFail({ id });
  }

  private announce(tx: EntityManager, workspace: ScopedWorkspace, vendor: StoredVendor, change: 'upserted' | 'deleted'): Promise<void> {
    return writeOutbox(tx, MANAGEMENT_OUTBOX, [
      definitionChangedMessage(
        {
          kind: 'vendor',
          change,
          workspace_id: workspace.id,
          workspace_slug: workspace.slug,
          id: `${vendor.channel}/${vendor.vendor}`,
          version: vendor.version,
          document: change === 'deleted' ? undefined : documentOf(vendor, this.baseUrl(vendor)),
        },
        this.clock.now(),
      ),
    ]);
  }

  private vendors(manager: EntityManager = this.db.manager): Repository<StoredVendor> {
    return manager.getRepository(VendorEntity);
  }
}

/** The configuration as the dispatchers receive it: on the bus, and in a vendor test. */
export function documentOf(vendor: StoredVendor, baseUrl: string | null): VendorDocument {
  return {
    id: vendor.id,
    channel: vendor.channel,
    vendor: vendor.vendor,
    is_enabled: vendor.isEnabled,
    priority: vendor.priority,
    base_url: baseUrl,
    settings: vendor.settings,
    credentials_sealed: sealedOf(vendor).toString('base64'),
    version: vendor.version,
  };
}

export function sealedOf(vendor: StoredVendor): Buffer {
  // Only deleted rows lack credentials (a CHECK constraint), and they are never shown.
  if (!vendor.credentialsSealed) throw new Error(`vendor ${vendor.id} has no credentials`);
  return vendor.credentialsSealed;
}

/** Two live vendors of a channel may not share a priority, or the fallback order would be ambiguous. */
async function refuseTakenPriority(tx: EntityManager, workspace: ScopedWorkspace, spec: VendorSpec, priority: number): Promise<void> {
  const holder = await tx.getRepository(VendorEntity).findOne({
    select: { id: true, vendor: true },
    where: { workspaceId: workspace.id, channel: spec.channel, priority, vendor: Not(spec.vendor), deletedAt: IsNull() },
  });
  if (holder) throw new HeraldError('conflict', `priority ${priority} of channel '${spec.channel}' is already taken by '${holder.vendor}'`);
}

export function notConfigured(spec: VendorSpec): HeraldError {
  return HeraldError.notFound(`vendor '${spec.channel}/${spec.vendor}' is not configured`);
}

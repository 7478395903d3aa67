import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { returningRows } from '@herald/database';
import { OffsetPage } from '../http/offset-page';
import { MANAGEMENT_OUTBOX, definitionChangedMessage } from '../management-events/management-events';
import { ScopedWorkspace, lockWorkspaceForWrites } from '../workspaces/workspace-scope';
import { VendorSpec, vendorSpecOf } from './vendor-catalogue';
import { VendorCredentials } from './vendor-credentials';
import { VendorChange, parseNewVendor, parseVendorUpdate } from './vendor-change';

export interface VendorRow {
  id: string;
  channel: string;
  vendor: string;
  is_enabled: boolean;
  priority: number;
  /** Set only when it overrides the vendor's default. */
  base_url: string | null;
  settings: Record<string, unknown>;
  credentials_sealed: Buffer | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

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

const COLUMNS = `id, channel, vendor, is_enabled, priority, base_url, settings, credentials_sealed, version, created_at, updated_at, deleted_at`;

/**
 * The vendors of workspaces, with sealed credentials. Writes of one workspace take
 * turns (its row is locked) and each is announced on definition.changed in its transaction.
 */
@Injectable()
export class VendorStore {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    private readonly credentials: VendorCredentials,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Ordered by channel, then priority (the fallback order), then vendor. */
  async list(workspace: ScopedWorkspace, onlyChannel: string | null, page: OffsetPage): Promise<{ count: number; rows: VendorRow[] }> {
    const [{ count }] = (await this.db.query(
      `SELECT count(*)::int AS count FROM management.vendors
        WHERE workspace_id = $1 AND deleted_at IS NULL AND ($2::text IS NULL OR channel = $2)`,
      [workspace.id, onlyChannel],
    )) as Array<{ count: number }>;
    const rows = (await this.db.query(
      `SELECT ${COLUMNS} FROM management.vendors
        WHERE workspace_id = $1 AND deleted_at IS NULL AND ($2::text IS NULL OR channel = $2)
        ORDER BY channel, priority, vendor LIMIT $3 OFFSET $4`,
      [workspace.id, onlyChannel, page.limit, page.offset],
    )) as VendorRow[];
    return { count, rows };
  }

  async get(workspace: ScopedWorkspace, spec: VendorSpec): Promise<VendorRow> {
    const [row] = (await this.db.query(
      `SELECT ${COLUMNS} FROM management.vendors WHERE workspace_id = $1 AND channel = $2 AND vendor = $3 AND deleted_at IS NULL`,
      [workspace.id, spec.channel, spec.vendor],
    )) as VendorRow[];
    if (!row) throw notConfigured(spec);
    return row;
  }

  /**
   * Configures the vendor (the body validated with the path's vendor, vendor-change.ts):
   * `created` when it was not configured (or had been deleted), else it was updated.
   */
  async put(
    workspace: ScopedWorkspace,
    spec: VendorSpec,
    body: unknown,
  ): Promise<{ row: VendorRow; created: boolean }> {
    return this.db.transaction(async (tx) => {
      await lockWorkspaceForWrites(tx, workspace.id);
      const [existing] = (await tx.query(
        `SELECT ${COLUMNS} FROM management.vendors WHERE workspace_id = $1 AND channel = $2 AND vendor = $3`,
        [workspace.id, spec.channel, spec.vendor],
      )) as Array<VendorRow | undefined>;
      const live = existing?.deleted_at === null ? existing : undefined;
      const written = live
        ? await this.update(tx, workspace, spec, live, parseVendorUpdate(body, spec, this.credentials.open(live.id, sealedOf(live))))
        : await this.create(tx, workspace, spec, existing, body);
      await this.announce(tx, workspace, written, 'upserted');
      return { row: written, created: !live };
    });
  }

  async remove(workspace: ScopedWorkspace, spec: VendorSpec): Promise<void> {
    await this.db.transaction(async (tx) => {
      await lockWorkspaceForWrites(tx, workspace.id);
      // The row stays (its version must keep increasing); the secrets of a removed vendor do not.
      const [row] = returningRows<VendorRow>(
        await tx.query(
          `UPDATE management.vendors SET deleted_at = now(), updated_at = now(), credentials_sealed = NULL, version = version + 1
            WHERE workspace_id = $1 AND channel = $2 AND vendor = $3 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
          [workspace.id, spec.channel, spec.vendor],
        ),
      );
      if (!row) throw notConfigured(spec);
      await this.announce(tx, workspace, row, 'deleted');
    });
  }

  /** A first configuration, or a new one of a deleted vendor (which keeps its row, id and version count). */
  private async create(
    tx: EntityManager,
    workspace: ScopedWorkspace,
    spec: VendorSpec,
    deleted: VendorRow | undefined,
    body: unknown,
  ): Promise<VendorRow> {
    const change = parseNewVendor(body, spec);
    await refuseTakenPriority(tx, workspace, spec, change.priority);
    const id = deleted?.id ?? randomUUID();
    const values = [
      id,
      change.is_enabled ?? true,
      change.priority,
      change.base_url ?? null,
      JSON.stringify(change.settings ?? {}),
      this.credentials.seal(id, change.credentials),
    ];
    if (deleted) {
      const [row] = returningRows<VendorRow>(
        await tx.query(
          `UPDATE management.vendors SET is_enabled = $2, priority = $3, base_url = $4, settings = $5::jsonb, credentials_sealed = $6,
                  version = version + 1, created_at = now(), updated_at = now(), deleted_at = NULL
            WHERE id = $1 RETURNING ${COLUMNS}`,
          values,
        ),
      );
      return row;
    }
    const [row] = (await tx.query(
      `INSERT INTO management.vendors (id, is_enabled, priority, base_url, settings, credentials_sealed, workspace_id, channel, vendor)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
      [...values, workspace.id, spec.channel, spec.vendor],
    )) as VendorRow[];
    return row;
  }

  private async update(tx: EntityManager, workspace: ScopedWorkspace, spec: VendorSpec, live: VendorRow, change: VendorChange): Promise<VendorRow> {
    const priority = change.priority ?? live.priority;
    if (priority !== live.priority) await refuseTakenPriority(tx, workspace, spec, priority);
    const [row] = returningRows<VendorRow>(
      await tx.query(
        `UPDATE management.vendors SET is_enabled = $2, priority = $3, base_url = $4, settings = $5::jsonb, credentials_sealed = $6,
                version = version + 1, updated_at = now()
          WHERE id = $1 RETURNING ${COLUMNS}`,
        [
          live.id,
          change.is_enabled ?? live.is_enabled,
          priority,
          change.base_url === undefined ? live.base_url : change.base_url,
          JSON.stringify(change.settings ?? live.settings),
          change.credentials ? this.credentials.seal(live.id, change.credentials) : live.credentials_sealed,
        ],
      ),
    );
    return row;
  }

  private announce(
    tx: EntityManager,
    workspace: ScopedWorkspace,
    row: VendorRow,
    change: 'upserted' | 'deleted',
  ): Promise<void> {
    return writeOutbox(tx, MANAGEMENT_OUTBOX, [
      definitionChangedMessage(
        {
          kind: 'vendor',
          change,
          workspace_id: workspace.id,
          workspace_slug: workspace.slug,
          id: `${row.channel}/${row.vendor}`,
          version: row.version,
          document: change === 'deleted' ? undefined : documentOf(row, this.baseUrl(row)),
        },
        this.clock.now(),
      ),
    ]);
  }

  /** The API base URL the dispatchers call: the override, else the vendor's default. */
  baseUrl(row: VendorRow): string | null {
    return row.base_url ?? vendorSpecOf(row.channel, row.vendor).defaultBaseUrl(this.credentials.open(row.id, sealedOf(row)));
  }
}

/** The configuration as the dispatchers receive it: on the bus, and in a vendor test. */
export function documentOf(row: VendorRow, baseUrl: string | null): VendorDocument {
  return {
    id: row.id,
    channel: row.channel,
    vendor: row.vendor,
    is_enabled: row.is_enabled,
    priority: row.priority,
    base_url: baseUrl,
    settings: row.settings,
    credentials_sealed: sealedOf(row).toString('base64'),
    version: row.version,
  };
}

export function sealedOf(row: VendorRow): Buffer {
  // Only deleted rows lack credentials (a CHECK constraint), and they are never shown.
  if (!row.credentials_sealed) throw new Error(`vendor ${row.id} has no credentials`);
  return row.credentials_sealed;
}

/** Two live vendors of a channel may not share a priority, or the fallback order would be ambiguous. */
async function refuseTakenPriority(tx: EntityManager, workspace: ScopedWorkspace, spec: VendorSpec, priority: number): Promise<void> {
  const [holder] = (await tx.query(
    `SELECT vendor FROM management.vendors
      WHERE workspace_id = $1 AND channel = $2 AND priority = $3 AND vendor <> $4 AND deleted_at IS NULL`,
    [workspace.id, spec.channel, priority, spec.vendor],
  )) as Array<{ vendor: string }>;
  if (holder) throw new HeraldError('conflict', `priority ${priority} of channel '${spec.channel}' is already taken by '${holder.vendor}'`);
}

export function notConfigured(spec: VendorSpec): HeraldError {
  return HeraldError.notFound(`vendor '${spec.channel}/${spec.vendor}' is not configured`);
}

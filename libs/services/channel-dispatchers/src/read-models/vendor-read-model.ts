import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Channel, DefinitionChanged } from '@herald/contracts';
import { HERALD_LOGGER, HeraldLogger, SecretBox } from '@herald/runtime';
import { CredentialValue, VendorConfig } from '../vendors/vendor.port';

export const DISPATCH_SECRET_BOX = Symbol('DISPATCH_SECRET_BOX');

/** The document management-api announces for a vendor (`kind: 'vendor'`). */
interface VendorDocument {
  readonly id: string;
  readonly channel: Channel;
  readonly vendor: string;
  readonly is_enabled: boolean;
  readonly priority: number;
  readonly base_url: string | null;
  readonly settings: Record<string, unknown>;
  readonly credentials_sealed: string;
}

interface VendorRow {
  vendor_id: string;
  channel: Channel;
  vendor: string;
  priority: number;
  base_url: string | null;
  settings: Record<string, unknown>;
  credentials_sealed: string;
  version: number;
}

const CACHE_TTL_MS = 5_000;

/**
 * The vendors each workspace configured, from `notify.definition.changed.v1` (kind
 * `vendor`). Credentials stay sealed in the table and are opened in memory only, with
 * the associated data management sealed them with (`vendor:<id>`). One consumer group
 * for all replicas: they share the table.
 */
@Injectable()
export class VendorReadModel {
  /** By workspace and channel; the read itself is cached, so the attempts of a burst that miss together share one. */
  private readonly cache = new Map<string, { vendors: Promise<readonly VendorConfig[]>; expiresAt: number }>();

  constructor(
    @InjectDataSource('dispatch') private readonly db: DataSource,
    @Inject(DISPATCH_SECRET_BOX) private readonly box: SecretBox,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  /** The enabled vendors of a workspace's channel, highest priority (lowest number) first. */
  async vendorsOf(workspaceId: string, channel: Channel): Promise<readonly VendorConfig[]> {
    const key = `${workspaceId}/${channel}`;
    const cached = this.cache.get(key);
    if (cached && cached.expiresAt > Date.now()) return cached.vendors;
    const entry = { vendors: this.read(workspaceId, channel), expiresAt: Date.now() + CACHE_TTL_MS };
    this.cache.set(key, entry);
    // A failed read is not cached: the next attempt reads again.
    void entry.vendors.catch(() => {
      if (this.cache.get(key) === entry) this.cache.delete(key);
    });
    return entry.vendors;
  }

  /**
   * A vendor configuration by its id (the id in its status callback URL), enabled or not:
   * a disabled vendor's messages sent earlier still get their receipts. Undefined when
   * unknown or deleted. Not cached: callbacks are few beside sends.
   */
  async vendorById(vendorId: string): Promise<(VendorConfig & { readonly workspaceId: string }) | undefined> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(vendorId)) return undefined;
    const rows = (await this.db.query(
      `SELECT workspace_id, vendor_id, channel, vendor, priority, base_url, settings, credentials_sealed, version FROM dispatch.vendors
        WHERE vendor_id = $1 AND NOT is_deleted`,
      [vendorId],
    )) as Array<VendorRow & { workspace_id: string }>;
    const row = rows[0];
    const config = row ? this.open(row)[0] : undefined;
    return config && row ? { ...config, workspaceId: row.workspace_id } : undefined;
  }

  private async read(workspaceId: string, channel: Channel): Promise<readonly VendorConfig[]> {
    const rows = (await this.db.query(
      `SELECT vendor_id, channel, vendor, priority, base_url, settings, credentials_sealed, version FROM dispatch.vendors
        WHERE workspace_id = $1 AND channel = $2 AND is_enabled AND NOT is_deleted ORDER BY priority`,
      [workspaceId, channel],
    )) as VendorRow[];
    return rows.flatMap((row) => this.open(row));
  }

  private open(row: VendorRow): VendorConfig[] {
    try {
      const credentials = JSON.parse(this.box.open(Buffer.from(row.credentials_sealed, 'base64'), `vendor:${row.vendor_id}`)) as Record<string, CredentialValue>;
      return [
        {
          id: row.vendor_id,
          channel: row.channel,
          vendor: row.vendor,
          priority: row.priority,
          baseUrl: row.base_url,
          settings: row.settings,
          credentials,
          version: row.version,
        },
      ];
    } catch {
      // Sealed under another HERALD_SECRETS_KEY: the services disagree on the key. Never log the blob.
      this.logger.error("cannot open a vendor's credentials; is HERALD_SECRETS_KEY the same as management-api's?", { vendor_id: row.vendor_id });
      return [];
    }
  }

  /** A `vendor` change of `notify.definition.changed.v1` (ReadModelConsumers). */
  async apply(change: DefinitionChanged): Promise<void> {
    const [channel, vendor] = change.id.split('/');
    if (change.change === 'deleted') {
      await this.db.query(
        `UPDATE dispatch.vendors SET is_deleted = true, credentials_sealed = NULL, version = $4
          WHERE workspace_id = $1 AND channel = $2 AND vendor = $3 AND version < $4`,
        [change.workspace_id, channel, vendor, change.version],
      );
    } else {
      const document = change.document as VendorDocument;
      await this.db.query(
        `INSERT INTO dispatch.vendors (workspace_id, channel, vendor, vendor_id, is_enabled, is_deleted, priority, base_url, settings, credentials_sealed, version)
         VALUES ($1, $2, $3, $4, $5, false, $6, $7, $8::jsonb, $9, $10)
         ON CONFLICT (workspace_id, channel, vendor) DO UPDATE SET vendor_id = EXCLUDED.vendor_id, is_enabled = EXCLUDED.is_enabled, is_deleted = false,
           priority = EXCLUDED.priority, base_url = EXCLUDED.base_url, settings = EXCLUDED.settings,
           credentials_sealed = EXCLUDED.credentials_sealed, version = EXCLUDED.version
         WHERE dispatch.vendors.version < EXCLUDED.version`,
        [
          change.workspace_id,
          channel,
          vendor,
          document.id,
          document.is_enabled,
          document.priority,
          document.base_url,
          JSON.stringify(document.settings ?? {}),
          document.credentials_sealed,
          change.version,
        ],
      );
    }
    this.cache.clear();
    this.logger.info('vendor read model updated', { workspace_id: change.workspace_id, vendor: change.id, change: change.change, version: change.version });
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntitySchema, LessThan, Repository } from 'typeorm';
import { Channel } from '@herald/contracts';
import { HERALD_LOGGER, HeraldLogger, SecretBox } from '@herald/runtime';
import { CredentialValue, VendorConfig } from '../vendors/vendor.port';
import { DISPATCH_SECRET_BOX } from './dispatch-secret-box';

/**
 * A vendor's settings (a jsonb object): any value by name. Spelled `NonNullable<unknown> | null`
 * (every JSON value) because TypeORM's insert types refuse a plain `unknown`.
 */
export type VendorSettings = Record<string, NonNullable<unknown> | null>;

/** A workspace's vendor configuration as management-api last announced it, its credentials still sealed. */
export interface AnnouncedVendor {
  workspaceId: string;
  channel: Channel;
  vendor: string;
  vendorId: string;
  isEnabled: boolean;
  /** Deleted: kept (with its version, its credentials dropped) so an older announcement cannot bring it back. */
  isDeleted: boolean;
  /** Lowest first. */
  priority: number;
  baseUrl: string | null;
  settings: VendorSettings;
  /** Base64, sealed by management-api with `vendor:<vendor id>`, exactly as announced; null once deleted. */
  credentialsSealed: string | null;
  /** The announcement's version: an older one never overwrites a newer one. */
  version: number;
}

/** The vendor a configuration is, within its workspace. */
export interface VendorKey {
  readonly workspaceId: string;
  readonly channel: Channel;
  readonly vendor: string;
}

/** `dispatch.vendors` (created by the migrations, never by TypeORM). */
export const AnnouncedVendorEntity = new EntitySchema<AnnouncedVendor>({
  name: 'AnnouncedVendor',
  schema: 'dispatch',
  tableName: 'vendors',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    channel: { type: 'text', primary: true },
    vendor: { type: 'text', primary: true },
    vendorId: { name: 'vendor_id', type: 'uuid' },
    isEnabled: { name: 'is_enabled', type: 'boolean' },
    isDeleted: { name: 'is_deleted', type: 'boolean' },
    priority: { type: 'integer' },
    baseUrl: { name: 'base_url', type: 'text', nullable: true },
    settings: { type: 'jsonb' },
    credentialsSealed: { name: 'credentials_sealed', type: 'text', nullable: true },
    version: { type: 'integer' },
  },
});

/** What a send needs of a stored configuration: the credentials are opened from it. */
const CONFIG_COLUMNS = { workspaceId: true, channel: true, vendor: true, vendorId: true, priority: true, baseUrl: true, settings: true, credentialsSealed: true, version: true } as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `dispatch.vendors`: the vendors each workspace configured, from
 * `notify.definition.changed.v1` (kind `vendor`). Credentials stay sealed in the table
 * and are opened in memory only, when read, with the associated data management sealed
 * them with (`vendor:<id>`).
 */
@Injectable()
export class VendorRepository {
  constructor(
    @InjectDataSource('dispatch') private readonly db: DataSource,
    @Inject(DISPATCH_SECRET_BOX) private readonly box: SecretBox,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  /** The enabled vendors of a workspace's channel, highest priority (lowest number) first. One read. */
  async enabledOf(workspaceId: string, channel: Channel): Promise<VendorConfig[]> {
    const rows = await this.vendors().find({
      select: CONFIG_COLUMNS,
      where: { workspaceId, channel, isEnabled: true, isDeleted: false },
      order: { priority: 'ASC' },
    });
    return rows.flatMap((row) => this.opened(row));
  }

  /**
   * A vendor configuration by its id (the id in its status callback URL), enabled or not:
   * a disabled vendor's messages sent earlier still get their receipts. Undefined when
   * unknown or deleted (or not an id at all). Callbacks read it uncached: they are few
   * beside sends.
   */
  async byId(vendorId: string): Promise<(VendorConfig & { readonly workspaceId: string }) | undefined> {
    if (!UUID.test(vendorId)) return undefined;
    const row = await this.vendors().findOne({ select: CONFIG_COLUMNS, where: { vendorId, isDeleted: false } });
    const [config] = row ? this.opened(row) : [];
    return config && row ? { ...config, workspaceId: row.workspaceId } : undefined;
  }

  /** Writes an announced configuration (undeleting it), unless the stored one is of the same or a newer version. One statement. */
  async save(vendor: Omit<AnnouncedVendor, 'isDeleted'>): Promise<void> {
    await this.vendors()
      .createQueryBuilder('stored')
      .insert()
      .values({ ...vendor, isDeleted: false })
      .orUpdate(
        ['vendor_id', 'is_enabled', 'is_deleted', 'priority', 'base_url', 'settings', 'credentials_sealed', 'version'],
        ['workspace_id', 'channel', 'vendor'],
        { overwriteCondition: { where: 'stored.version < EXCLUDED.version' } },
      )
      .execute();
  }

  /** Marks the vendor deleted and drops its credentials, unless the stored configuration is of the same or a newer version. */
  async markDeleted(key: VendorKey, version: number): Promise<void> {
    await this.vendors().update(
      { workspaceId: key.workspaceId, channel: key.channel, vendor: key.vendor, version: LessThan(version) },
      { isDeleted: true, credentialsSealed: null, version },
    );
  }

  private opened(row: Pick<AnnouncedVendor, keyof typeof CONFIG_COLUMNS>): VendorConfig[] {
    try {
      const credentials = JSON.parse(this.box.open(Buffer.from(row.credentialsSealed ?? '', 'base64'), `vendor:${row.vendorId}`)) as Record<string, CredentialValue>;
      return [
        {
          id: row.vendorId,
          channel: row.channel,
          vendor: row.vendor,
          priority: row.priority,
          baseUrl: row.baseUrl,
          settings: row.settings,
          credentials,
          version: row.version,
        },
      ];
    } catch {
      // Sealed under another HERALD_SECRETS_KEY: the services disagree on the key. Never log the blob.
      this.logger.error("cannot open a vendor's credentials; is HERALD_SECRETS_KEY the same as management-api's?", { vendor_id: row.vendorId });
      return [];
    }
  }

  private vendors(): Repository<AnnouncedVendor> {
    return this.db.getRepository(AnnouncedVendorEntity);
  }
}

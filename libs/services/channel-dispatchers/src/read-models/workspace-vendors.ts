import { Inject, Injectable } from '@nestjs/common';
import { Channel, DefinitionChanged } from '@herald/contracts';
import { HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { VendorConfig } from '../vendors/vendor.port';
import { VendorRepository, VendorSettings } from './vendor.repository';

/** The document management-api announces for a vendor (`kind: 'vendor'`). */
interface VendorDocument {
  readonly id: string;
  readonly channel: Channel;
  readonly vendor: string;
  readonly is_enabled: boolean;
  readonly priority: number;
  readonly base_url: string | null;
  readonly settings?: VendorSettings;
  readonly credentials_sealed: string;
}

const CACHE_TTL_MS = 5_000;

/**
 * The vendors each workspace configured, from `notify.definition.changed.v1` (kind
 * `vendor`), kept in `dispatch.vendors` (the repository, which opens the credentials).
 * One consumer group for all replicas: they share the table. Read on every delivery
 * attempt, so a workspace channel's vendors are cached 5 s: one read per workspace,
 * channel and TTL at most.
 */
@Injectable()
export class WorkspaceVendors {
  /** By workspace and channel; the read itself is cached, so the attempts of a burst that miss together share one. */
  private readonly cache = new Map<string, { vendors: Promise<readonly VendorConfig[]>; expiresAt: number }>();

  constructor(
    private readonly stored: VendorRepository,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  /** The enabled vendors of a workspace's channel, highest priority (lowest number) first. */
  async vendorsOf(workspaceId: string, channel: Channel): Promise<readonly VendorConfig[]> {
    const key = `${workspaceId}/${channel}`;
    const cached = this.cache.get(key);
    if (cached && cached.expiresAt > Date.now()) return cached.vendors;
    const entry = { vendors: this.stored.enabledOf(workspaceId, channel), expiresAt: Date.now() + CACHE_TTL_MS };
    this.cache.set(key, entry);
    // A failed read is not cached: the next attempt reads again.
    void entry.vendors.catch(() => {
      if (this.cache.get(key) === entry) this.cache.delete(key);
    });
    return entry.vendors;
  }

  /** A `vendor` change of `notify.definition.changed.v1` (ReadModelConsumers). */
  async apply(change: DefinitionChanged): Promise<void> {
    // The id is `<channel>/<vendor>`.
    const [channel, vendor] = change.id.split('/') as [Channel, string];
    if (change.change === 'deleted') {
      await this.stored.markDeleted({ workspaceId: change.workspace_id, channel, vendor }, change.version);
    } else {
      const document = change.document as VendorDocument;
      await this.stored.save({
        workspaceId: change.workspace_id,
        channel,
        vendor,
        vendorId: document.id,
        isEnabled: document.is_enabled,
        priority: document.priority,
        baseUrl: document.base_url ?? null,
        settings: document.settings ?? {},
        credentialsSealed: document.credentials_sealed,
        version: change.version,
      });
    }
    this.cache.clear();
    this.logger.info('vendor read model updated', { workspace_id: change.workspace_id, vendor: change.id, change: change.change, version: change.version });
  }
}

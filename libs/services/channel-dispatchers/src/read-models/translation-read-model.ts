import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DefinitionChanged } from '@herald/contracts';
import { LocaleTranslations, localeTranslationsOf } from '@herald/rendering';
import { HERALD_LOGGER, HeraldLogger } from '@herald/runtime';

interface AnnouncedTranslations {
  readonly files: ReadonlyArray<{ readonly locale: string; readonly namespace: string | null; readonly content: Record<string, string> }>;
}

const CACHE_TTL_MS = 5_000;
const CACHE_CAPACITY = 10_000;

/**
 * Each workspace's live translations, from `notify.definition.changed.v1` (kind
 * `translation`), kept by locale then key (`namespace:key` for a namespaced file), as
 * `{{t}}` reads them. Lookups are cached 5 s; the replica that applies a change drops
 * its cache entry at once, other replicas within the TTL.
 */
@Injectable()
export class TranslationReadModel {
  /** The read itself is cached, so the attempts of a burst that miss together share one. */
  private readonly cache = new Map<string, { translations: Promise<LocaleTranslations>; expiresAt: number }>();

  constructor(
    @InjectDataSource('dispatch') private readonly db: DataSource,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  /** The workspace's live translations; none before its first commit. */
  async translationsOf(workspaceId: string): Promise<LocaleTranslations> {
    const cached = this.cache.get(workspaceId);
    if (cached && cached.expiresAt > Date.now()) return cached.translations;
    if (this.cache.size >= CACHE_CAPACITY) this.cache.clear();
    const entry = { translations: this.read(workspaceId), expiresAt: Date.now() + CACHE_TTL_MS };
    this.cache.set(workspaceId, entry);
    // A failed read is not cached: the next attempt reads again.
    void entry.translations.catch(() => {
      if (this.cache.get(workspaceId) === entry) this.cache.delete(workspaceId);
    });
    return entry.translations;
  }

  private async read(workspaceId: string): Promise<LocaleTranslations> {
    const [row] = (await this.db.query(`SELECT by_locale FROM dispatch.translations WHERE workspace_id = $1`, [workspaceId])) as Array<{ by_locale: LocaleTranslations }>;
    return row?.by_locale ?? {};
  }

  /** A `translation` change of `notify.definition.changed.v1` (ReadModelConsumers). */
  async apply(change: DefinitionChanged): Promise<void> {
    const files = change.change === 'deleted' ? [] : (change.document as AnnouncedTranslations).files;
    const byLocale = localeTranslationsOf(files);
    // A redelivered or reordered older announcement never overwrites a newer one.
    await this.db.query(
      `INSERT INTO dispatch.translations (workspace_id, version, by_locale) VALUES ($1, $2, $3::jsonb)
       ON CONFLICT (workspace_id) DO UPDATE SET version = EXCLUDED.version, by_locale = EXCLUDED.by_locale WHERE dispatch.translations.version < EXCLUDED.version`,
      [change.workspace_id, change.version, JSON.stringify(byLocale)],
    );
    this.cache.delete(change.workspace_id);
    this.logger.info('translation read model updated', { workspace_id: change.workspace_id, version: change.version });
  }
}

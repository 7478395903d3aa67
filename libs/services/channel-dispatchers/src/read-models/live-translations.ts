import { Inject, Injectable } from '@nestjs/common';
import { DefinitionChanged } from '@herald/contracts';
import { LocaleTranslations, localeTranslationsOf } from '@herald/rendering';
import { HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { TranslationRepository } from './translation.repository';

interface AnnouncedTranslations {
  readonly files: ReadonlyArray<{ readonly locale: string; readonly namespace: string | null; readonly content: Record<string, string> }>;
}

const CACHE_TTL_MS = 5_000;
const CACHE_CAPACITY = 10_000;

/**
 * Each workspace's live translations, from `notify.definition.changed.v1` (kind
 * `translation`), kept in `dispatch.translations` (the repository) by locale then key
 * (`namespace:key` for a namespaced file), as `{{t}}` reads them. Read on every
 * delivery attempt, so lookups are cached 5 s per workspace: one read per workspace and
 * TTL at most. The replica that applies a change drops its cache entry at once, other
 * replicas within the TTL.
 */
@Injectable()
export class LiveTranslations {
  /** The read itself is cached, so the attempts of a burst that miss together share one. */
  private readonly cache = new Map<string, { translations: Promise<LocaleTranslations>; expiresAt: number }>();

  constructor(
    private readonly stored: TranslationRepository,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  /** The workspace's live translations; none before its first commit. */
  async translationsOf(workspaceId: string): Promise<LocaleTranslations> {
    const cached = this.cache.get(workspaceId);
    if (cached && cached.expiresAt > Date.now()) return cached.translations;
    if (this.cache.size >= CACHE_CAPACITY) this.cache.clear();
    const entry = { translations: this.stored.liveOf(workspaceId), expiresAt: Date.now() + CACHE_TTL_MS };
    this.cache.set(workspaceId, entry);
    // A failed read is not cached: the next attempt reads again.
    void entry.translations.catch(() => {
      if (this.cache.get(workspaceId) === entry) this.cache.delete(workspaceId);
    });
    return entry.translations;
  }

  /** A `translation` change of `notify.definition.changed.v1` (ReadModelConsumers). */
  async apply(change: DefinitionChanged): Promise<void> {
    const files = change.change === 'deleted' ? [] : (change.document as AnnouncedTranslations).files;
    await this.stored.apply(change.workspace_id, change.version, localeTranslationsOf(files));
    this.cache.delete(change.workspace_id);
    this.logger.info('translation read model updated', { workspace_id: change.workspace_id, version: change.version });
  }
}

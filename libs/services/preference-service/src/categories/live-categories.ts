import { Inject, Injectable } from '@nestjs/common';
import { CategoryDocument } from '@herald/audience';
import { CategoryTranslationDocument, DefinitionChanged } from '@herald/contracts';
import { HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { CategoryDocumentRepository } from './category-document.repository';

/**
 * Applies management-api's announcements of preference categories (kind `category`) and
 * their translations (kind `category_translation`) to CategoryDocumentRepository, which
 * the preference reads ask.
 */
@Injectable()
export class LiveCategories {
  constructor(
    private readonly stored: CategoryDocumentRepository,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  /** A change of `notify.definition.changed.v1` (CategoryChangesConsumer): categories and their translations, the rest skipped. */
  async apply(change: DefinitionChanged): Promise<void> {
    if (change.kind === 'category_translation') return this.applyTranslation(change);
    if (change.kind !== 'category') return;
    if (change.change === 'deleted') await this.stored.removeCategories(change.workspace_id, change.version);
    else await this.stored.saveCategories(change.workspace_id, change.version, change.document as CategoryDocument);
    this.logger.info('preference categories updated', { workspace_id: change.workspace_id, version: change.version });
  }

  private async applyTranslation(change: DefinitionChanged): Promise<void> {
    if (change.change === 'deleted') await this.stored.removeTranslation(change.workspace_id, change.id, change.version);
    // The parser checked the document's shape.
    else await this.stored.saveTranslation(change.workspace_id, change.id, change.version, change.document as CategoryTranslationDocument);
    this.logger.info('preference category translation updated', { workspace_id: change.workspace_id, locale: change.id, version: change.version });
  }
}

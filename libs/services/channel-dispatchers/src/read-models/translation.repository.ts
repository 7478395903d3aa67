import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntitySchema, Repository } from 'typeorm';
import { LocaleTranslations } from '@herald/rendering';

/** A workspace's live translations as last announced, by locale then key. */
export interface WorkspaceTranslations {
  workspaceId: string;
  /** The announcement's version: an older one never overwrites a newer one. */
  version: number;
  byLocale: LocaleTranslations;
}

/** `dispatch.translations` (created by the migrations, never by TypeORM). */
export const WorkspaceTranslationsEntity = new EntitySchema<WorkspaceTranslations>({
  name: 'WorkspaceTranslations',
  schema: 'dispatch',
  tableName: 'translations',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    version: { type: 'integer' },
    byLocale: { name: 'by_locale', type: 'jsonb' },
  },
});

/**
 * `dispatch.translations`: each workspace's live translations, one row per workspace,
 * from `notify.definition.changed.v1` (kind `translation`), as `{{t}}` reads them.
 */
@Injectable()
export class TranslationRepository {
  constructor(@InjectDataSource('dispatch') private readonly db: DataSource) {}

  /** The workspace's live translations; none before its first commit. One read by primary key. */
  async liveOf(workspaceId: string): Promise<LocaleTranslations> {
    const row = await this.translations().findOne({ select: { workspaceId: true, byLocale: true }, where: { workspaceId } });
    return row?.byLocale ?? {};
  }

  /**
   * Writes the translations of an announcement's version, unless a newer version is
   * there already: a redelivered or reordered older announcement never overwrites a
   * newer one. One statement.
   */
  async apply(workspaceId: string, version: number, byLocale: LocaleTranslations): Promise<void> {
    await this.translations()
      .createQueryBuilder('stored')
      .insert()
      .values({ workspaceId, version, byLocale })
      .orUpdate(['version', 'by_locale'], ['workspace_id'], { overwriteCondition: { where: 'stored.version < EXCLUDED.version' } })
      .execute();
  }

  private translations(): Repository<WorkspaceTranslations> {
    return this.db.getRepository(WorkspaceTranslationsEntity);
  }
}

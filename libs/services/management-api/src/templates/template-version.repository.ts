import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, Repository } from 'typeorm';
import { TemplateMeta, VariantRow } from './template-rows';
import { CHANNEL_ORDER } from './template.repository';

/** A variant as a committed version holds it: what it said, not its approval state of the day. */
export type VersionedVariant = Pick<VariantRow, 'channel' | 'id' | 'tenant_id' | 'locale' | 'conditions' | 'content' | 'seq_no' | 'needs_vendor_approval'>;

/** One committed version of a template, as it went live. */
export interface TemplateVersion {
  templateId: string;
  versionNo: number;
  commitMessage: string | null;
  committedAt: Date;
  meta: TemplateMeta;
  variants: VersionedVariant[];
  /** The live hash of the version (templateHash of its metadata and variants). */
  hash: string;
}

/** `management.template_versions` (created by the migrations, never by TypeORM). */
export const TemplateVersionEntity = new EntitySchema<TemplateVersion>({
  name: 'TemplateVersion',
  schema: 'management',
  tableName: 'template_versions',
  columns: {
    templateId: { name: 'template_id', type: 'uuid', primary: true },
    versionNo: { name: 'version_no', type: 'integer', primary: true },
    commitMessage: { name: 'commit_message', type: 'text', nullable: true },
    committedAt: { name: 'committed_at', type: 'timestamptz' },
    meta: { type: 'jsonb' },
    variants: { type: 'jsonb' },
    hash: { type: 'text' },
  },
});

/** A version without its variants' content: what a history list shows. */
export type TemplateVersionSummary = Omit<TemplateVersion, 'variants'> & { readonly variantsCount: number };

/**
 * A template's history: each commit records the version it made live, in the commit's
 * transaction, so the history and the live version never disagree.
 */
@Injectable()
export class TemplateVersionRepository {
  constructor(@InjectDataSource('management') private readonly db: DataSource) {}

  /**
   * Records the template's live version as it is now in `tx` (the commit that made it).
   * The snapshot is taken by the database from the live rows, so it is exactly what went live.
   */
  async recordLive(tx: EntityManager, templateId: string): Promise<void> {
    // Hand-written: one INSERT ... SELECT snapshots the live row and its live variants (jsonb_agg), and skips a version already recorded.
    await tx.query(
      `INSERT INTO management.template_versions (template_id, version_no, commit_message, committed_at, meta, variants, hash)
       SELECT t.id, t.version_no, t.commit_message, t.active_at, t.live,
         coalesce((SELECT jsonb_agg(jsonb_build_object('channel', v.channel, 'id', v.id, 'tenant_id', v.tenant_id, 'locale', v.locale,
                     'conditions', v.conditions, 'content', v.content, 'seq_no', v.seq_no, 'needs_vendor_approval', v.needs_vendor_approval)
                     ORDER BY ${CHANNEL_ORDER}, v.tenant_id NULLS FIRST, v.locale, v.seq_no, v.id)
                   FROM management.template_variants v WHERE v.template_id = t.id AND v.mode = 'live'), '[]'::jsonb),
         coalesce(t.live_hash, '')
       FROM management.templates t WHERE t.id = $1 AND t.live IS NOT NULL AND t.version_no IS NOT NULL
       ON CONFLICT (template_id, version_no) DO NOTHING`,
      [templateId],
    );
  }

  /** Newest first, with how many variants each version had. */
  async history(templateId: string): Promise<TemplateVersionSummary[]> {
    const rows = await this.versions()
      .createQueryBuilder('v')
      .select(['v.templateId', 'v.versionNo', 'v.commitMessage', 'v.committedAt', 'v.meta', 'v.hash'])
      .addSelect('jsonb_array_length(v.variants)', 'variants_count')
      .where('v.templateId = :templateId', { templateId })
      .orderBy('v.versionNo', 'DESC')
      .getRawAndEntities<{ variants_count: number }>();
    return rows.entities.map((entity, index) => ({ ...entity, variantsCount: Number(rows.raw[index].variants_count) }));
  }

  async find(templateId: string, versionNo: number): Promise<TemplateVersion | null> {
    return this.versions().findOne({ where: { templateId, versionNo } });
  }

  private versions(): Repository<TemplateVersion> {
    return this.db.getRepository(TemplateVersionEntity);
  }
}

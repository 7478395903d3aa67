import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntitySchema, LessThan, Repository } from 'typeorm';
import { PayloadSchemaLink } from './payload-schema.repository';

/** A workspace's workflow as management-api last announced it: what ingest needs of it. */
export interface AnnouncedWorkflow {
  workspaceId: string;
  slug: string;
  isEnabled: boolean;
  triggerType: string;
  /** The announcement's version: an older one never overwrites a newer one. */
  version: number;
  /** The schema its triggers' data must satisfy, if it links one. */
  payloadSchema: PayloadSchemaLink | null;
}

/** A live workflow, as a trigger is accepted or refused by it. */
export type LiveWorkflow = Readonly<Pick<AnnouncedWorkflow, 'slug' | 'isEnabled' | 'triggerType' | 'payloadSchema'>>;

/** `ingest.workflows` (created by the migrations, never by TypeORM). */
export const AnnouncedWorkflowEntity = new EntitySchema<AnnouncedWorkflow>({
  name: 'AnnouncedWorkflow',
  schema: 'ingest',
  tableName: 'workflows',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    slug: { type: 'text', primary: true },
    isEnabled: { name: 'is_enabled', type: 'boolean' },
    triggerType: { name: 'trigger_type', type: 'text' },
    version: { type: 'integer' },
    payloadSchema: { name: 'payload_schema', type: 'jsonb', nullable: true },
  },
});

/**
 * `ingest.workflows`: which workflows are live in each workspace, from
 * `notify.definition.changed.v1` (kind `workflow`): all ingest needs to answer 404 for
 * an unknown or disabled workflow, and the schema its data must satisfy. The engine
 * keeps its own read model with the whole definition.
 */
@Injectable()
export class WorkflowRepository {
  constructor(@InjectDataSource('ingest') private readonly db: DataSource) {}

  /** The live workflow, or null when the workspace has none with this slug. One read by primary key. */
  async liveOf(workspaceId: string, slug: string): Promise<LiveWorkflow | null> {
    const row = await this.workflows().findOne({ select: { slug: true, isEnabled: true, triggerType: true, payloadSchema: true }, where: { workspaceId, slug } });
    return row ? { slug: row.slug, isEnabled: row.isEnabled, triggerType: row.triggerType, payloadSchema: row.payloadSchema } : null;
  }

  /** Writes an announced workflow, unless the stored one is of the same or a newer version. One statement. */
  async save(workflow: AnnouncedWorkflow): Promise<void> {
    await this.workflows()
      .createQueryBuilder('stored')
      .insert()
      .values(workflow)
      .orUpdate(['is_enabled', 'trigger_type', 'version', 'payload_schema'], ['workspace_id', 'slug'], { overwriteCondition: { where: 'stored.version < EXCLUDED.version' } })
      .execute();
  }

  /** Removes a deleted workflow, unless the stored one is of the same or a newer version (a workflow created again since). */
  async remove(workspaceId: string, slug: string, version: number): Promise<void> {
    await this.workflows().delete({ workspaceId, slug, version: LessThan(version) });
  }

  private workflows(): Repository<AnnouncedWorkflow> {
    return this.db.getRepository(AnnouncedWorkflowEntity);
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, Repository } from 'typeorm';
import { OffsetPage } from '../http/offset-page';
import { ScopedWorkspace } from '../workspaces/workspace-scope';

/** A workspace's status webhook endpoint: where to send which status events. */
export interface WebhookEndpoint {
  id: string;
  workspaceId: string;
  url: string;
  description: string;
  /** Statuses sent (`delivered`, `seen`...). */
  eventTypes: string[];
  /** Filters: empty sends every workflow, channel or category. */
  workflows: string[];
  channels: string[];
  categories: string[];
  enabled: boolean;
  secretSealed: Buffer;
  secretHint: string;
  createdAt: Date;
  updatedAt: Date;
}

/** What a create or an update sets. */
export type WebhookEndpointFields = Pick<WebhookEndpoint, 'url' | 'description' | 'eventTypes' | 'workflows' | 'channels' | 'categories' | 'enabled'>;

/** `management.webhook_endpoints` (created by the migrations, never by TypeORM): each column typed once, here. */
export const WebhookEndpointEntity = new EntitySchema<WebhookEndpoint>({
  name: 'WebhookEndpoint',
  schema: 'management',
  tableName: 'webhook_endpoints',
  columns: {
    id: { type: 'uuid', primary: true },
    workspaceId: { name: 'workspace_id', type: 'uuid' },
    url: { type: 'text' },
    description: { type: 'text' },
    eventTypes: { name: 'event_types', type: 'text', array: true },
    workflows: { type: 'text', array: true },
    channels: { type: 'text', array: true },
    categories: { type: 'text', array: true },
    enabled: { type: 'boolean' },
    secretSealed: { name: 'secret_sealed', type: 'bytea' },
    secretHint: { name: 'secret_hint', type: 'text' },
    createdAt: { name: 'created_at', type: 'timestamptz', createDate: true },
    updatedAt: { name: 'updated_at', type: 'timestamptz', updateDate: true },
  },
});

/** At most this many endpoints per workspace: each status event is matched against all of them. */
export const MAX_ENDPOINTS_PER_WORKSPACE = 50;

/** The status webhook endpoints of workspaces. Their queued deliveries go with them (ON DELETE CASCADE). */
@Injectable()
export class WebhookEndpointRepository {
  constructor(@InjectDataSource('management') private readonly db: DataSource) {}

  /** A page of the workspace's endpoints, oldest first, and how many it has in all. */
  async list(workspace: ScopedWorkspace, page: OffsetPage): Promise<{ count: number; endpoints: WebhookEndpoint[] }> {
    const [endpoints, count] = await this.endpoints().findAndCount({
      where: { workspaceId: workspace.id },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { count, endpoints };
  }

  find(workspace: ScopedWorkspace, id: string): Promise<WebhookEndpoint | null> {
    return this.endpoints().findOne({ where: { id, workspaceId: workspace.id } });
  }

  /** Every endpoint by id, whatever its workspace: the sender's view. */
  findByIds(ids: readonly string[]): Promise<WebhookEndpoint[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.endpoints()
      .createQueryBuilder('e')
      .where('e.id IN (:...ids)', { ids: [...ids] })
      .getMany();
  }

  /** Null when the workspace already has the most endpoints it may. */
  async create(workspace: ScopedWorkspace, id: string, fields: WebhookEndpointFields, secretSealed: Buffer, secretHint: string): Promise<WebhookEndpoint | null> {
    return this.db.transaction(async (tx) => {
      // Counted under the workspace's row lock, so concurrent creates cannot pass the limit together.
      await tx.query(`SELECT 1 FROM management.workspaces WHERE id = $1 FOR UPDATE`, [workspace.id]);
      if ((await this.endpoints(tx).count({ where: { workspaceId: workspace.id } })) >= MAX_ENDPOINTS_PER_WORKSPACE) return null;
      const created = this.endpoints(tx).create({ id, workspaceId: workspace.id, ...fields, secretSealed, secretHint });
      await this.endpoints(tx).insert(created);
      return created;
    });
  }

  /** The endpoint as updated, or null when the workspace has no such endpoint. */
  async update(workspace: ScopedWorkspace, id: string, fields: Partial<WebhookEndpointFields>): Promise<WebhookEndpoint | null> {
    const result = await this.endpoints().update({ id, workspaceId: workspace.id }, fields);
    if (!result.affected) return null;
    return this.find(workspace, id);
  }

  /** False when the workspace has no such endpoint. */
  async remove(workspace: ScopedWorkspace, id: string): Promise<boolean> {
    const result = await this.endpoints().delete({ id, workspaceId: workspace.id });
    return (result.affected ?? 0) > 0;
  }

  private endpoints(manager: EntityManager = this.db.manager): Repository<WebhookEndpoint> {
    return manager.getRepository(WebhookEndpointEntity);
  }
}

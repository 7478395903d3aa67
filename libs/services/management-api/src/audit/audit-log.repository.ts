import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntitySchema, FindOptionsWhere, LessThan, MoreThanOrEqual, Repository } from 'typeorm';

/** Who made a change: a named operator, or a service token (automation). */
export interface AuditActor {
  readonly kind: 'operator' | 'service_token';
  readonly id: string;
  /** The operator's email, or the token's name. */
  readonly name: string;
}

/** One change made through the management API. */
export interface AuditEntry {
  seq: string;
  id: string;
  accountId: string;
  workspaceSlug: string | null;
  actorKind: AuditActor['kind'];
  actorId: string;
  actorName: string;
  method: string;
  /** The route's pattern (`/v1/:workspace/workflow/:slug`), what filters group by. */
  route: string;
  /** The path as called. */
  path: string;
  /** What kind of thing changed (`workflow`, `vendor`, `operator`...). */
  resourceType: string;
  /** The route's parameters naming it (`{ slug: 'order-update' }`). */
  resourceIds: Record<string, string>;
  statusCode: number;
  /** Its state before and after, secrets redacted; null where the route has none. */
  before: object | null;
  after: object | null;
  occurredAt: Date;
}

export type NewAuditEntry = Omit<AuditEntry, 'seq' | 'id' | 'occurredAt' | 'actorKind' | 'actorId' | 'actorName'> & { readonly actor: AuditActor };

/** `management.audit_log` (created by the migrations, never by TypeORM). */
export const AuditEntryEntity = new EntitySchema<AuditEntry>({
  name: 'AuditEntry',
  schema: 'management',
  tableName: 'audit_log',
  columns: {
    // bigserial, read as a string (it may pass 2^53).
    seq: { type: 'bigint', primary: true, generated: 'increment' },
    id: { type: 'uuid' },
    accountId: { name: 'account_id', type: 'uuid' },
    workspaceSlug: { name: 'workspace_slug', type: 'text', nullable: true },
    actorKind: { name: 'actor_kind', type: 'text' },
    actorId: { name: 'actor_id', type: 'uuid' },
    actorName: { name: 'actor_name', type: 'text' },
    method: { type: 'text' },
    route: { type: 'text' },
    path: { type: 'text' },
    resourceType: { name: 'resource_type', type: 'text' },
    resourceIds: { name: 'resource_ids', type: 'jsonb' },
    statusCode: { name: 'status_code', type: 'integer' },
    before: { type: 'jsonb', nullable: true },
    after: { type: 'jsonb', nullable: true },
    occurredAt: { name: 'occurred_at', type: 'timestamptz', createDate: true },
  },
});

export interface AuditFilter {
  readonly workspace?: string;
  readonly resourceType?: string;
  readonly actorId?: string;
  readonly method?: string;
  /** Entries at or after this time. */
  readonly since?: Date;
  /** Entries before this one (its `seq`): the next page of a newest-first list. */
  readonly before?: string;
}

/** The account's audit log: appended by the audit interceptor, read newest first. */
@Injectable()
export class AuditLogRepository {
  constructor(@InjectDataSource('management') private readonly db: DataSource) {}

  async append(entry: NewAuditEntry): Promise<AuditEntry> {
    const { actor, ...rest } = entry;
    const row = this.entries().create({ ...rest, id: randomUUID(), actorKind: actor.kind, actorId: actor.id, actorName: actor.name });
    // The insert reads back seq and occurred_at.
    await this.entries().insert(row);
    return row;
  }

  /** Up to `limit` entries matching the filter, newest first; `before` pages on. */
  async list(accountId: string, filter: AuditFilter, limit: number): Promise<AuditEntry[]> {
    const where: FindOptionsWhere<AuditEntry> = { accountId };
    if (filter.workspace !== undefined) where.workspaceSlug = filter.workspace;
    if (filter.resourceType !== undefined) where.resourceType = filter.resourceType;
    if (filter.actorId !== undefined) where.actorId = filter.actorId;
    if (filter.method !== undefined) where.method = filter.method;
    if (filter.since !== undefined) where.occurredAt = MoreThanOrEqual(filter.since);
    if (filter.before !== undefined) where.seq = LessThan(filter.before);
    return this.entries().find({ where, order: { seq: 'DESC' }, take: limit });
  }

  private entries(): Repository<AuditEntry> {
    return this.db.manager.getRepository(AuditEntryEntity);
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, EntitySchema, Repository } from 'typeorm';
import { returningRows } from '@herald/database';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { MANAGEMENT_OUTBOX, definitionChangedMessage } from '../management-events/management-events';
import { OffsetPage } from '../http/offset-page';
import { DEFAULT_CATEGORY_DOCUMENT } from '../preference-categories/default-categories';

/** A workspace as stored in `management.workspaces`. */
export interface Workspace {
  id: string;
  accountId: string;
  slug: string;
  name: string;
  description: string;
  /** `sandbox`, `test` or `live`, as the reference names them. */
  mode: string;
  dataCenter: Record<string, unknown>;
  createdAt: Date;
}

/** What a request needs of the workspace it is scoped to. */
export type ScopedWorkspace = Pick<Workspace, 'id' | 'slug'>;

/** `management.workspaces` (created by the migrations, never by TypeORM): each column typed once, here. */
export const WorkspaceEntity = new EntitySchema<Workspace>({
  name: 'Workspace',
  schema: 'management',
  tableName: 'workspaces',
  columns: {
    id: { type: 'uuid', primary: true },
    accountId: { name: 'account_id', type: 'uuid' },
    slug: { type: 'text' },
    name: { type: 'text' },
    description: { type: 'text' },
    mode: { type: 'text' },
    dataCenter: { name: 'data_center', type: 'jsonb' },
    createdAt: { name: 'created_at', type: 'timestamptz', createDate: true },
  },
});

/** The workspaces of accounts. A workspace of another account is never found: nothing reveals what other accounts hold. */
@Injectable()
export class WorkspaceRepository {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The account's workspace with this slug, or null (none, or another account's). */
  async findOwned(accountId: string, slug: string): Promise<ScopedWorkspace | null> {
    return this.workspaces().findOne({ select: { id: true, slug: true }, where: { accountId, slug } });
  }

  /** A page of the account's workspaces, oldest first, and how many it has in all. */
  async list(accountId: string, page: OffsetPage): Promise<{ count: number; workspaces: Workspace[] }> {
    const [workspaces, count] = await this.workspaces().findAndCount({
      where: { accountId },
      order: { createdAt: 'ASC', slug: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { count, workspaces };
  }

  /** Creates the workspace with the default categories; null when the account already has the slug. */
  async create(accountId: string, fields: Pick<Workspace, 'slug' | 'name' | 'description' | 'mode'>): Promise<Workspace | null> {
    return this.db.transaction(async (tx) => {
      const id = randomUUID();
      // ON CONFLICT DO NOTHING: of two creations of one slug, the second finds it taken (no unique-violation error).
      const inserted = await this.workspaces(tx)
        .createQueryBuilder()
        .insert()
        .values({ id, accountId, ...fields })
        .orIgnore()
        .returning(['createdAt', 'dataCenter'])
        .updateEntity(false)
        .execute();
      const stored = returningRows<{ created_at: Date; data_center: Record<string, unknown> }>(inserted.raw);
      if (stored.length === 0) return null;
      // A new workspace can name a category in its first workflow at once.
      await seedDefaultCategories(tx, [id], this.clock.now());
      return { id, accountId, ...fields, dataCenter: stored[0].data_center, createdAt: stored[0].created_at };
    });
  }

  /**
   * Inserts the workspace in `tx` without its default categories: the first start makes one
   * with the account, then seeds every workspace's (`seedMissingDefaultCategories`).
   */
  async createWithoutCategories(tx: EntityManager, accountId: string, fields: Pick<Workspace, 'slug' | 'name' | 'mode'>): Promise<ScopedWorkspace> {
    const workspace = { id: randomUUID(), slug: fields.slug };
    await this.workspaces(tx).insert({ ...fields, id: workspace.id, accountId });
    return workspace;
  }

  /** Gives every workspace without categories the defaults, in a transaction of its own; answers how many. */
  async seedMissingDefaultCategories(): Promise<number> {
    return this.db.transaction((tx) => seedDefaultCategories(tx, 'all', this.clock.now()));
  }

  /** The accounts that have a workspace with this slug (the service-token CLI picks an account by one). */
  async accountsWithSlug(slug: string): Promise<string[]> {
    const rows = await this.workspaces().find({ select: { accountId: true }, where: { slug } });
    return rows.map((row) => row.accountId);
  }

  private workspaces(manager: EntityManager = this.db.manager): Repository<Workspace> {
    return manager.getRepository(WorkspaceEntity);
  }
}

/**
 * Serialises a workspace's writes that must see each other (priorities of vendors,
 * the category document) by locking its row, in the caller's transaction. NO KEY
 * UPDATE, so inserts of rows that merely reference the workspace (their foreign key
 * checks) are not held up.
 */
export async function lockWorkspaceForWrites(tx: EntityManager, workspaceId: string): Promise<void> {
  await tx.getRepository(WorkspaceEntity).findOne({ select: { id: true }, where: { id: workspaceId }, lock: { mode: 'for_no_key_update' } });
}

/**
 * Gives the workspaces that have no category document yet the default one, live, and
 * announces it (in the caller's transaction). Idempotent: a workspace with any version,
 * draft or live, keeps it. Also covers workspaces created before defaults existed.
 */
export async function seedDefaultCategories(tx: EntityManager, workspaceIds: readonly string[] | 'all', now: Date): Promise<number> {
  // Hand-written: one INSERT ... SELECT over every workspace still without a document, which the query builder cannot say.
  const seeded = returningRows<{ workspace_id: string; workspace_slug: string }>(await tx.query(
    `INSERT INTO management.preference_category_versions (workspace_id, version_no, status, document, validation_errors, commit_message, committed_at)
     SELECT w.id, 1, 'active', $2::jsonb, '[]'::jsonb, 'default categories', now()
       FROM management.workspaces w
      WHERE ($1::uuid[] IS NULL OR w.id = ANY($1::uuid[]))
        AND NOT EXISTS (SELECT 1 FROM management.preference_category_versions v WHERE v.workspace_id = w.id)
     ON CONFLICT DO NOTHING
     RETURNING workspace_id, (SELECT slug FROM management.workspaces WHERE id = workspace_id) AS workspace_slug`,
    [workspaceIds === 'all' ? null : workspaceIds, JSON.stringify(DEFAULT_CATEGORY_DOCUMENT)],
  ));
  await writeOutbox(
    tx,
    MANAGEMENT_OUTBOX,
    seeded.map((row) =>
      definitionChangedMessage(
        { kind: 'category', change: 'committed', workspace_id: row.workspace_id, workspace_slug: row.workspace_slug, id: 'categories', version: 1, document: DEFAULT_CATEGORY_DOCUMENT },
        now,
      ),
    ),
  );
  return seeded.length;
}

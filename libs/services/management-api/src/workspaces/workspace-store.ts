import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CLOCK, Clock } from '@herald/runtime';
import { OffsetPage } from '../http/offset-page';
import { seedDefaultCategories } from '../preference-categories/default-categories';

export interface WorkspaceRow {
  readonly uid: string;
  readonly slug: string;
  readonly data_center: Record<string, unknown>;
  readonly name: string;
  readonly description: string;
  readonly mode: string;
}

/** The workspaces of an account. */
@Injectable()
export class WorkspaceStore {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(accountId: string, page: OffsetPage): Promise<{ count: number; rows: WorkspaceRow[] }> {
    const [{ count }] = (await this.db.query(`SELECT count(*)::int AS count FROM management.workspaces WHERE account_id = $1`, [
      accountId,
    ])) as Array<{ count: number }>;
    const rows = (await this.db.query(
      `SELECT id AS uid, slug, name, description, mode, data_center
         FROM management.workspaces WHERE account_id = $1 ORDER BY created_at, slug LIMIT $2 OFFSET $3`,
      [accountId, page.limit, page.offset],
    )) as WorkspaceRow[];
    return { count, rows };
  }

  /** Creates the workspace with the default categories; false when the account already has the slug. */
  async create(accountId: string, workspace: { slug: string; name: string; description: string; mode: string }): Promise<boolean> {
    const workspaceId = randomUUID();
    return this.db.transaction(async (tx) => {
      const inserted = (await tx.query(
        `INSERT INTO management.workspaces (id, account_id, slug, name, description, mode)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account_id, slug) DO NOTHING RETURNING id`,
        [workspaceId, accountId, workspace.slug, workspace.name, workspace.description, workspace.mode],
      )) as unknown[];
      if (inserted.length === 0) return false;
      // A new workspace can name a category in its first workflow at once.
      await seedDefaultCategories(tx, [workspaceId], this.clock.now());
      return true;
    });
  }
}

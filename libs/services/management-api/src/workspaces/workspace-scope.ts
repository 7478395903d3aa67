import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { HeraldError } from '@herald/contracts';

export interface ScopedWorkspace {
  readonly id: string;
  readonly slug: string;
}

/**
 * Resolves `/v1/{workspace}/...` for the calling account. A workspace of another
 * account is indistinguishable from one that does not exist (404), so nothing
 * reveals what other accounts hold.
 */
@Injectable()
export class WorkspaceScope {
  constructor(@InjectDataSource('management') private readonly db: DataSource) {}

  async resolve(accountId: string, slug: string): Promise<ScopedWorkspace> {
    const rows = (await this.db.query(`SELECT id, slug FROM management.workspaces WHERE account_id = $1 AND slug = $2`, [
      accountId,
      slug,
    ])) as ScopedWorkspace[];
    if (rows.length === 0) throw HeraldError.notFound(`workspace '${slug}' not found`);
    return rows[0];
  }
}

/**
 * Serialises a workspace's writes that must see each other (priorities of vendors,
 * the category document) by locking its row. NO KEY UPDATE, so inserts of rows that
 * merely reference the workspace (their foreign key checks) are not held up.
 */
export async function lockWorkspaceForWrites(tx: EntityManager, workspaceId: string): Promise<void> {
  await tx.query(`SELECT id FROM management.workspaces WHERE id = $1 FOR NO KEY UPDATE`, [workspaceId]);
}

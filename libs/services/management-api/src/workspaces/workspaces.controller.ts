import { Body, Controller, Get, HttpCode, Inject, Post, Query, Req, UseGuards } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { CLOCK, Clock } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, offsetPage } from '../http/offset-page';
import { seedDefaultCategories } from '../preference-categories/default-categories';
import { CreateWorkspaceDto, slugOf } from './create-workspace.dto';

export interface WorkspaceView {
  readonly uid: string;
  readonly slug: string;
  readonly data_center: Record<string, unknown>;
  readonly is_expired: boolean;
  readonly has_limit_reached: boolean;
  readonly name: string;
  readonly description: string;
  readonly mode: string;
}

/** Interface 2.10 / 4.6: the workspaces of the token's account, offset-paginated. */
@Controller('v1/workspace')
@UseGuards(ServiceTokenGuard)
export class WorkspacesController {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  list(@Req() request: ManagementRequest, @Query('limit') limit?: string, @Query('offset') offset?: string): Promise<OffsetList<WorkspaceView>> {
    return this.page(accountOf(request), offsetPage(limit, offset));
  }

  /** As in the reference, the answer is the updated list. */
  @Post()
  @HttpCode(200)
  async create(@Req() request: ManagementRequest, @Body() body: CreateWorkspaceDto): Promise<OffsetList<WorkspaceView>> {
    const accountId = accountOf(request);
    const slug = body.slug ?? slugOf(body.name);
    if (!slug) throw HeraldError.validation([{ path: 'name', message: 'must contain a letter or a digit' }]);
    const workspaceId = randomUUID();
    await this.db.transaction(async (tx) => {
      const inserted = (await tx.query(
        `INSERT INTO management.workspaces (id, account_id, slug, name, description, mode)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account_id, slug) DO NOTHING RETURNING id`,
        [workspaceId, accountId, slug, body.name, body.description ?? '', body.mode ?? 'sandbox'],
      )) as unknown[];
      if (inserted.length === 0) throw new HeraldError('conflict', `workspace '${slug}' already exists`);
      // A new workspace can name a category in its first workflow at once.
      await seedDefaultCategories(tx, [workspaceId], this.clock.now());
    });
    return this.page(accountId, { limit: 20, offset: 0 });
  }

  private async page(accountId: string, { limit, offset }: { limit: number; offset: number }): Promise<OffsetList<WorkspaceView>> {
    const [{ count }] = (await this.db.query(`SELECT count(*)::int AS count FROM management.workspaces WHERE account_id = $1`, [
      accountId,
    ])) as Array<{ count: number }>;
    const rows = (await this.db.query(
      `SELECT id AS uid, slug, name, description, mode, data_center
         FROM management.workspaces WHERE account_id = $1 ORDER BY created_at, slug LIMIT $2 OFFSET $3`,
      [accountId, limit, offset],
    )) as Array<Omit<WorkspaceView, 'is_expired' | 'has_limit_reached'>>;
    return {
      meta: { count, limit, offset },
      results: rows.map((row) => ({ ...row, is_expired: false, has_limit_reached: false })),
    };
  }
}

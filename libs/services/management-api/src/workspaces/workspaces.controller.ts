import { Body, Controller, Get, HttpCode, Post, Query, Req, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, OffsetPage, offsetPage } from '../http/offset-page';
import { CreateWorkspaceDto, slugOf } from './create-workspace.dto';
import { WorkspaceRow, WorkspaceStore } from './workspace-store';

export interface WorkspaceView extends WorkspaceRow {
  readonly is_expired: boolean;
  readonly has_limit_reached: boolean;
}

/** Interface 2.10 / 4.6: the workspaces of the token's account, offset-paginated. */
@Controller('v1/workspace')
@UseGuards(ServiceTokenGuard)
export class WorkspacesController {
  constructor(private readonly store: WorkspaceStore) {}

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
    const created = await this.store.create(accountId, { slug, name: body.name, description: body.description ?? '', mode: body.mode ?? 'sandbox' });
    if (!created) throw new HeraldError('conflict', `workspace '${slug}' already exists`);
    return this.page(accountId, { limit: 20, offset: 0 });
  }

  private async page(accountId: string, page: OffsetPage): Promise<OffsetList<WorkspaceView>> {
    const { count, rows } = await this.store.list(accountId, page);
    return {
      meta: { count, ...page },
      results: rows.map((row) => ({ ...row, is_expired: false, has_limit_reached: false })),
    };
  }
}

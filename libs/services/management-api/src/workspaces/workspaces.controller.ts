import { Controller, Get, HttpCode, Post, Query, Req, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { ValidBody } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, OffsetPage, offsetPage } from '../http/offset-page';
import { WORKSPACE_BODIES, WorkspaceCreate, slugOf } from './request-bodies';
import { WorkspaceRepository } from './workspace.repository';
import { RequiredRole } from '../auth/roles';

/** A workspace as the reference lists it. */
export interface WorkspaceView {
  readonly uid: string;
  readonly slug: string;
  readonly data_center: Record<string, unknown>;
  readonly name: string;
  readonly description: string;
  readonly mode: string;
  readonly is_expired: boolean;
  readonly has_limit_reached: boolean;
}

/** Interface 2.10 / 4.6: the workspaces of the token's account, offset-paginated. */
@Controller('v1/workspace')
@UseGuards(ServiceTokenGuard)
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspaceRepository) {}

  @RequiredRole('viewer')
  @Get()
  list(@Req() request: ManagementRequest, @Query('limit') limit?: string, @Query('offset') offset?: string): Promise<OffsetList<WorkspaceView>> {
    return this.page(accountOf(request), offsetPage(limit, offset));
  }

  /** As in the reference, the answer is the updated list. */
  @RequiredRole('owner')
  @Post()
  @HttpCode(200)
  async create(@Req() request: ManagementRequest, @ValidBody(WORKSPACE_BODIES.create) body: WorkspaceCreate): Promise<OffsetList<WorkspaceView>> {
    const accountId = accountOf(request);
    const slug = body.slug ?? slugOf(body.name);
    if (!slug) throw HeraldError.validation([{ path: 'name', message: 'must contain a letter or a digit' }]);
    const created = await this.workspaces.create(accountId, { slug, name: body.name, description: body.description ?? '', mode: body.mode ?? 'sandbox' });
    if (!created) throw new HeraldError('conflict', `workspace '${slug}' already exists`);
    return this.page(accountId, { limit: 20, offset: 0 });
  }

  private async page(accountId: string, page: OffsetPage): Promise<OffsetList<WorkspaceView>> {
    const { count, workspaces } = await this.workspaces.list(accountId, page);
    return {
      meta: { count, ...page },
      results: workspaces.map((workspace) => ({
        uid: workspace.id,
        slug: workspace.slug,
        name: workspace.name,
        description: workspace.description,
        mode: workspace.mode,
        data_center: workspace.dataCenter,
        is_expired: false,
        has_limit_reached: false,
      })),
    };
  }
}

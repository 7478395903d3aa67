import { Controller, HttpCode, Inject, Param, Post, Req, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { AuthenticatedRequest, AuthenticatedWorkspace, CurrentWorkspace, WORKSPACE_CREDENTIALS, WorkspaceAuthGuard, WorkspaceCredentials } from '@herald/runtime';
import { Acceptance } from '../acceptance/acceptance';
import { validateBroadcast } from '../validation';
import { ingestBody } from './request-body';

/**
 * `POST /{workspace_key}/broadcast/` (reference `trigger-broadcast`, called by the SDKs'
 * `subscriber_lists.broadcast`): the template sent to every member of a subscriber list.
 * The workspace key in the path must be one of the authenticated workspace's.
 */
@Controller(':workspace_key/broadcast')
@UseGuards(WorkspaceAuthGuard)
export class BroadcastController {
  constructor(
    private readonly acceptance: Acceptance,
    @Inject(WORKSPACE_CREDENTIALS) private readonly credentials: WorkspaceCredentials,
  ) {}

  @Post()
  @HttpCode(202)
  async broadcast(
    @CurrentWorkspace() workspace: AuthenticatedWorkspace,
    @Param('workspace_key') workspaceKey: string,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ message: string }> {
    const keys = await this.credentials.secretsOfWorkspaceKey(workspaceKey);
    if (!keys.some((key) => key.workspace.id === workspace.id)) throw HeraldError.notFound('workspace key not found');
    const broadcast = validateBroadcast(ingestBody(request));
    if (!broadcast.ok) throw HeraldError.validation(broadcast.errors);
    await this.acceptance.acceptBroadcast(workspace, broadcast.value);
    return { message: 'Accepted - OK' };
  }
}

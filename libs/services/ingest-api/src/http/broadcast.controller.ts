import { Controller, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { AuthenticatedRequest, AuthenticatedWorkspace, CurrentWorkspace, RequestBodySchema, WORKSPACE_CREDENTIALS, WorkspaceAuthGuard, WorkspaceCredentials } from '@herald/runtime';
import { Acceptance } from '../acceptance/acceptance';
import { SignedRequestReplays } from '../acceptance/signed-request-replays';
import { validateBroadcast } from '../validation';
import { BacklogPushBack } from './backlog-push-back.guard';
import { ingestBody } from './request-body';
import { ROUTE_BODIES } from './request-body-schema';

/**
 * `POST /{workspace_key}/broadcast/` (reference `trigger-broadcast`, called by the SDKs'
 * `subscriber_lists.broadcast`): the template sent to every member of a subscriber list.
 * The workspace key in the path must be one of the authenticated workspace's. An exact
 * replay of a signed request is answered as the first was, starting nothing.
 */
@Controller(':workspace_key/broadcast')
@UseGuards(WorkspaceAuthGuard, BacklogPushBack)
export class BroadcastController {
  constructor(
    private readonly acceptance: Acceptance,
    private readonly replays: SignedRequestReplays,
    @Inject(WORKSPACE_CREDENTIALS) private readonly credentials: WorkspaceCredentials,
  ) {}

  @Post()
  @RequestBodySchema(ROUTE_BODIES.broadcast)
  async broadcast(
    @CurrentWorkspace() workspace: AuthenticatedWorkspace,
    @Param('workspace_key') workspaceKey: string,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ message: string }> {
    const answer = await this.replays.answerOnce(workspace, request, async (messageIdAt) => {
      const keys = await this.credentials.secretsOfWorkspaceKey(workspaceKey);
      if (!keys.some((key) => key.workspace.id === workspace.id)) throw HeraldError.notFound('workspace key not found');
      const broadcast = validateBroadcast(ingestBody(request));
      if (!broadcast.ok) throw HeraldError.validation(broadcast.errors);
      await this.acceptance.acceptBroadcast(workspace, broadcast.value, messageIdAt(0));
      return { status: 202, body: { message: 'Accepted - OK' } };
    });
    void reply.status(answer.status);
    return answer.body as { message: string };
  }
}

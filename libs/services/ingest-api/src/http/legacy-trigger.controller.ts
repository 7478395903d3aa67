import { Controller, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { AuthenticatedRequest, AuthenticatedWorkspace, CurrentWorkspace, RequestBodySchema, WORKSPACE_CREDENTIALS, WorkspaceAuthGuard, WorkspaceCredentials } from '@herald/runtime';
import { Acceptance } from '../acceptance/acceptance';
import { SignedRequestReplays } from '../acceptance/signed-request-replays';
import { validateLegacyTrigger } from '../validation';
import { BulkResponse, acceptBulk } from './bulk-records';
import { BacklogPushBack } from './backlog-push-back.guard';
import { ingestBody } from './request-body';
import { ROUTE_BODIES } from './request-body-schema';

/**
 * `POST /{workspace_key}/trigger/` (reference `dynamic-workflow-trigger`): the legacy
 * trigger of the SDKs (`trigger_workflow`, `bulk_workflows`, Java's `triggerWorkflow`
 * and `bulkWorkflows`), which names a template instead of a workflow. One object → 202,
 * an array → 207 per record, with the validation, idempotency and fan-out of `/trigger/`.
 * The workspace key in the path must be one of the authenticated workspace's. An exact
 * replay of a signed request is answered as the first was, starting nothing.
 */
@Controller(':workspace_key/trigger')
@UseGuards(WorkspaceAuthGuard, BacklogPushBack)
export class LegacyTriggerController {
  constructor(
    private readonly acceptance: Acceptance,
    private readonly replays: SignedRequestReplays,
    @Inject(WORKSPACE_CREDENTIALS) private readonly credentials: WorkspaceCredentials,
  ) {}

  @Post()
  @RequestBodySchema(ROUTE_BODIES.legacyTrigger)
  async trigger(
    @CurrentWorkspace() workspace: AuthenticatedWorkspace,
    @Param('workspace_key') workspaceKey: string,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ message: string; message_id: string } | BulkResponse> {
    const keys = await this.credentials.secretsOfWorkspaceKey(workspaceKey);
    if (!keys.some((key) => key.workspace.id === workspace.id)) throw HeraldError.notFound('workspace key not found');
    const answer = await this.replays.answerOnce(workspace, request, async (messageIdAt) => {
      const body = ingestBody(request);
      if (Array.isArray(body)) {
        return { status: 207, body: await acceptBulk(body, validateLegacyTrigger, (trigger, index) => this.acceptance.acceptTrigger(workspace, trigger, 'api', messageIdAt(index))) };
      }
      const trigger = validateLegacyTrigger(body);
      if (!trigger.ok) throw HeraldError.validation(trigger.errors);
      const accepted = await this.acceptance.acceptTrigger(workspace, trigger.value, 'api', messageIdAt(0));
      return { status: 202, body: { message: 'Accepted - OK', message_id: accepted.messageId } };
    });
    void reply.status(answer.status);
    return answer.body as { message: string; message_id: string } | BulkResponse;
  }
}

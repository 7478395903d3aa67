import { Controller, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { Acceptance } from '../acceptance/acceptance';
import { SignedRequestReplays } from '../acceptance/signed-request-replays';
import { validateTrigger } from '../validation';
import { BulkResponse, acceptBulk } from './bulk-records';
import { BacklogPushBack } from './backlog-push-back.guard';
import { ingestBody } from './request-body';
import { AuthenticatedRequest, AuthenticatedWorkspace, CurrentWorkspace, RequestBodySchema, WorkspaceAuthGuard } from '@herald/runtime';
import { ROUTE_BODIES } from './request-body-schema';

/**
 * `POST /trigger/`: one object → 202, an array (bulk) → 207 per record. An exact replay
 * of a signed request is answered as the first was, starting nothing (SignedRequestReplays).
 */
@Controller('trigger')
@UseGuards(WorkspaceAuthGuard, BacklogPushBack)
export class TriggerController {
  constructor(
    private readonly acceptance: Acceptance,
    private readonly replays: SignedRequestReplays,
  ) {}

  @Post()
  @RequestBodySchema(ROUTE_BODIES.trigger)
  async trigger(
    @CurrentWorkspace() workspace: AuthenticatedWorkspace,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ message_id: string; status: 'success' } | BulkResponse> {
    const answer = await this.replays.answerOnce(workspace, request, async (messageIdAt) => {
      const body = ingestBody(request);
      if (Array.isArray(body)) {
        return { status: 207, body: await acceptBulk(body, validateTrigger, (trigger, index) => this.acceptance.acceptTrigger(workspace, trigger, 'api', messageIdAt(index))) };
      }
      const trigger = validateTrigger(body);
      if (!trigger.ok) throw HeraldError.validation(trigger.errors);
      const accepted = await this.acceptance.acceptTrigger(workspace, trigger.value, 'api', messageIdAt(0));
      return { status: 202, body: { message_id: accepted.messageId, status: 'success' } };
    });
    void reply.status(answer.status);
    return answer.body as { message_id: string; status: 'success' } | BulkResponse;
  }
}

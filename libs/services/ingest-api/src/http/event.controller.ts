import { Controller, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { SignedRequestReplays } from '../acceptance/signed-request-replays';
import { validateEventRecord } from '../validation';
import { BulkResponse } from './bulk-records';
import { BacklogPushBack } from './backlog-push-back.guard';
import { EventIntake } from './event-intake';
import { ingestBody } from './request-body';
import { AuthenticatedRequest, AuthenticatedWorkspace, CurrentWorkspace, RequestBodySchema, WorkspaceAuthGuard } from '@herald/runtime';
import { ROUTE_BODIES } from './request-body-schema';

/**
 * `POST /event/`: one track or identity event (`$user_operations`, the SDKs' user
 * saves) → 202 `{"message": "OK"}`, an array of either or both → 207 per record. An
 * exact replay of a signed request is answered as the first was, starting nothing.
 */
@Controller('event')
@UseGuards(WorkspaceAuthGuard, BacklogPushBack)
export class EventController {
  constructor(
    private readonly intake: EventIntake,
    private readonly replays: SignedRequestReplays,
  ) {}

  @Post()
  @RequestBodySchema(ROUTE_BODIES.event)
  async track(
    @CurrentWorkspace() workspace: AuthenticatedWorkspace,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ message: 'OK' } | BulkResponse> {
    const answer = await this.replays.answerOnce(workspace, request, async (messageIdAt) => {
      const body = ingestBody(request);
      if (Array.isArray(body)) return { status: 207, body: await this.intake.acceptAll(workspace, body, validateEventRecord, messageIdAt) };
      const record = validateEventRecord(body);
      if (!record.ok) throw HeraldError.validation(record.errors);
      await this.intake.accept(workspace, record.value, messageIdAt(0));
      return { status: 202, body: { message: 'OK' } };
    });
    void reply.status(answer.status);
    return answer.body as { message: 'OK' } | BulkResponse;
  }
}

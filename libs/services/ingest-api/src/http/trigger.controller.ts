import { Controller, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { Acceptance } from '../acceptance/acceptance';
import { validateTrigger } from '../validation';
import { BulkResponse, acceptBulk } from './bulk-records';
import { ingestBody } from './request-body';
import { AuthenticatedRequest, AuthenticatedWorkspace, CurrentWorkspace, WorkspaceAuthGuard } from '@herald/runtime';

/** `POST /trigger/`: one object → 202, an array (bulk) → 207 per record. */
@Controller('trigger')
@UseGuards(WorkspaceAuthGuard)
export class TriggerController {
  constructor(private readonly acceptance: Acceptance) {}

  @Post()
  async trigger(
    @CurrentWorkspace() workspace: AuthenticatedWorkspace,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ message_id: string; status: 'success' } | BulkResponse> {
    const body = ingestBody(request);
    if (Array.isArray(body)) {
      void reply.status(207);
      return acceptBulk(body, validateTrigger, (trigger) => this.acceptance.acceptTrigger(workspace, trigger, 'api'));
    }
    const trigger = validateTrigger(body);
    if (!trigger.ok) throw HeraldError.validation(trigger.errors);
    const accepted = await this.acceptance.acceptTrigger(workspace, trigger.value, 'api');
    void reply.status(202);
    return { message_id: accepted.messageId, status: 'success' };
  }
}

import { Controller, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { Acceptance } from '../acceptance/acceptance';
import { validateEvent } from '../validation';
import { BulkResponse, acceptBulk } from './bulk-records';
import { ingestBody } from './request-body';
import { AuthenticatedRequest, AuthenticatedWorkspace, CurrentWorkspace, WorkspaceAuthGuard } from '@herald/runtime';

/** `POST /event/`: one event → 202 `{"message": "OK"}`, an array → 207 per record. */
@Controller('event')
@UseGuards(WorkspaceAuthGuard)
export class EventController {
  constructor(private readonly acceptance: Acceptance) {}

  @Post()
  async track(
    @CurrentWorkspace() workspace: AuthenticatedWorkspace,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ message: 'OK' } | BulkResponse> {
    const body = ingestBody(request);
    if (Array.isArray(body)) {
      void reply.status(207);
      return acceptBulk(body, validateEvent, (event) => this.acceptance.acceptEvent(workspace, event, 'api'));
    }
    const event = validateEvent(body);
    if (!event.ok) throw HeraldError.validation(event.errors);
    await this.acceptance.acceptEvent(workspace, event.value, 'api');
    void reply.status(202);
    return { message: 'OK' };
  }
}

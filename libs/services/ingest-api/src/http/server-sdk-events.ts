import { Controller, Injectable, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { AuthenticatedRequest, RequestBodySchema, SuprSendClientErrorFilter, WorkspaceAuthGuard } from '@herald/runtime';
import { SignedRequestReplays } from '../acceptance/signed-request-replays';
import { readServerSdkEvent } from '../validation';
import { BacklogPushBack } from './backlog-push-back.guard';
import { BulkResponse } from './bulk-records';
import { EventIntake } from './event-intake';
import { ingestBody } from './request-body';
import { ROUTE_BODIES } from './request-body-schema';

/** What a backend SDK's single `/v2/event/` call is answered: the event's message id, which suprsend-py-sdk reports. */
export interface ServerSdkEventAnswer {
  readonly message: 'OK';
  readonly message_id: string;
}

/**
 * The backend SDKs' event routes (suprsend-py-sdk posts `track_event` to `/v2/event/` and
 * bulk events to `/v2/bulk/event/`), signed with the workspace key and secret (or a Bearer
 * API key) as `/event/` is: the same records, validation, limits and signed-replay answers,
 * with `$insert_id` as each record's idempotency key (`readServerSdkEvent`). Errors carry
 * the nested `error.message` the SDK reports.
 */
@Injectable()
export class ServerSdkEvents {
  constructor(
    private readonly auth: WorkspaceAuthGuard,
    private readonly pushBack: BacklogPushBack,
    private readonly intake: EventIntake,
    private readonly replays: SignedRequestReplays,
  ) {}

  /** `POST /v2/event/` with a server credential: one record → 202. */
  async acceptOne(request: AuthenticatedRequest, reply: FastifyReply): Promise<ServerSdkEventAnswer> {
    const workspace = await this.auth.authenticateRequest(request);
    this.pushBack.canActivate();
    const answer = await this.replays.answerOnce(workspace, request, async (messageIdAt) => {
      const record = readServerSdkEvent(ingestBody(request));
      if (!record.ok) throw HeraldError.validation(record.errors);
      const accepted = await this.intake.accept(workspace, record.value, messageIdAt(0));
      return { status: 202, body: { message: 'OK', message_id: accepted.messageId } };
    });
    void reply.status(answer.status);
    return answer.body as ServerSdkEventAnswer;
  }

  /** `POST /v2/bulk/event/`: an array of records → 207, a result per record (limits of `/event/`'s bulk). */
  async acceptMany(request: AuthenticatedRequest, reply: FastifyReply): Promise<BulkResponse> {
    const workspace = await this.auth.authenticateRequest(request);
    this.pushBack.canActivate();
    const answer = await this.replays.answerOnce(workspace, request, async (messageIdAt) => {
      const body = ingestBody(request);
      if (!Array.isArray(body)) throw HeraldError.validation([{ path: '', message: 'must be an array of events' }]);
      return { status: 207, body: await this.intake.acceptAll(workspace, body, readServerSdkEvent, messageIdAt) };
    });
    void reply.status(answer.status);
    return answer.body as BulkResponse;
  }
}

/** `POST /v2/bulk/event/`: see ServerSdkEvents. No browser SDK calls it, so no CORS. */
@Controller('v2/bulk/event')
@UseFilters(SuprSendClientErrorFilter)
export class BulkEventController {
  constructor(private readonly events: ServerSdkEvents) {}

  @Post()
  @RequestBodySchema(ROUTE_BODIES.sdkBulkEvent)
  accept(@Req() request: AuthenticatedRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<BulkResponse> {
    return this.events.acceptMany(request, reply);
  }
}

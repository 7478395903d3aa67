import { Controller, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { Accepted, Acceptance } from '../acceptance/acceptance';
import { MessageIdAt, SignedRequestReplays } from '../acceptance/signed-request-replays';
import { EventRecord, MAX_BULK_RECORDS, eventBulkSizeErrors, validateEventRecord } from '../validation';
import { BulkRecordResult, BulkResponse, acceptBulk } from './bulk-records';
import { BacklogPushBack } from './backlog-push-back.guard';
import { ingestBody } from './request-body';
import { AuthenticatedRequest, AuthenticatedWorkspace, CurrentWorkspace, WorkspaceAuthGuard } from '@herald/runtime';

/**
 * `POST /event/`: one track or identity event (`$user_operations`, the SDKs' user
 * saves) → 202 `{"message": "OK"}`, an array of either or both → 207 per record. An
 * exact replay of a signed request is answered as the first was, starting nothing.
 */
@Controller('event')
@UseGuards(WorkspaceAuthGuard, BacklogPushBack)
export class EventController {
  constructor(
    private readonly acceptance: Acceptance,
    private readonly replays: SignedRequestReplays,
  ) {}

  @Post()
  async track(
    @CurrentWorkspace() workspace: AuthenticatedWorkspace,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ message: 'OK' } | BulkResponse> {
    const answer = await this.replays.answerOnce(workspace, request, async (messageIdAt) => {
      const body = ingestBody(request);
      if (Array.isArray(body)) return { status: 207, body: await this.acceptAll(workspace, body, messageIdAt) };
      const record = validateEventRecord(body);
      if (!record.ok) throw HeraldError.validation(record.errors);
      await this.accept(workspace, record.value, messageIdAt(0));
      return { status: 202, body: { message: 'OK' } };
    });
    void reply.status(answer.status);
    return answer.body as { message: 'OK' } | BulkResponse;
  }

  /**
   * A bulk of up to 400 records (identity events come 400 to a call). acceptBulk takes
   * at most 100 at a time, so the records go through it in slices, keeping their order.
   */
  private async acceptAll(workspace: AuthenticatedWorkspace, body: readonly unknown[], messageIdAt: MessageIdAt): Promise<BulkResponse> {
    const sizeErrors = eventBulkSizeErrors(body);
    if (sizeErrors.length > 0) throw HeraldError.validation(sizeErrors);
    const records: BulkRecordResult[] = [];
    for (let start = 0; start < body.length; start += MAX_BULK_RECORDS) {
      const slice = await acceptBulk(body.slice(start, start + MAX_BULK_RECORDS), validateEventRecord, (record, index) =>
        this.accept(workspace, record, messageIdAt(start + index)),
      );
      records.push(...slice.records);
    }
    return { records, status: 'success' };
  }

  private accept(workspace: AuthenticatedWorkspace, record: EventRecord, messageId: string): Promise<Accepted> {
    return record.kind === 'identity'
      ? this.acceptance.acceptIdentityEvent(workspace, record.identity, 'api', messageId)
      : this.acceptance.acceptEvent(workspace, record.event, 'api', messageId);
  }
}

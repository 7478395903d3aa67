import { Controller, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { Accepted, Acceptance } from '../acceptance/acceptance';
import { EventRecord, MAX_BULK_RECORDS, eventBulkSizeErrors, validateEventRecord } from '../validation';
import { BulkRecordResult, BulkResponse, acceptBulk } from './bulk-records';
import { ingestBody } from './request-body';
import { AuthenticatedRequest, AuthenticatedWorkspace, CurrentWorkspace, WorkspaceAuthGuard } from '@herald/runtime';

/**
 * `POST /event/`: one track or identity event (`$user_operations`, the SDKs' user
 * saves) → 202 `{"message": "OK"}`, an array of either or both → 207 per record.
 */
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
      return this.acceptAll(workspace, body);
    }
    const record = validateEventRecord(body);
    if (!record.ok) throw HeraldError.validation(record.errors);
    await this.accept(workspace, record.value);
    void reply.status(202);
    return { message: 'OK' };
  }

  /**
   * A bulk of up to 400 records (identity events come 400 to a call). acceptBulk takes
   * at most 100 at a time, so the records go through it in slices, keeping their order.
   */
  private async acceptAll(workspace: AuthenticatedWorkspace, body: readonly unknown[]): Promise<BulkResponse> {
    const sizeErrors = eventBulkSizeErrors(body);
    if (sizeErrors.length > 0) throw HeraldError.validation(sizeErrors);
    const records: BulkRecordResult[] = [];
    for (let start = 0; start < body.length; start += MAX_BULK_RECORDS) {
      const slice = await acceptBulk(body.slice(start, start + MAX_BULK_RECORDS), validateEventRecord, (record) => this.accept(workspace, record));
      records.push(...slice.records);
    }
    return { records, status: 'success' };
  }

  private accept(workspace: AuthenticatedWorkspace, record: EventRecord): Promise<Accepted> {
    return record.kind === 'identity'
      ? this.acceptance.acceptIdentityEvent(workspace, record.identity, 'api')
      : this.acceptance.acceptEvent(workspace, record.event, 'api');
  }
}

import { Injectable } from '@nestjs/common';
import { HeraldError, ParseResult } from '@herald/contracts';
import type { AuthenticatedWorkspace } from '@herald/runtime';
import { Accepted, Acceptance } from '../acceptance/acceptance';
import type { MessageIdAt } from '../acceptance/signed-request-replays';
import { EventRecord, MAX_BULK_RECORDS, eventBulkSizeErrors } from '../validation';
import { BulkRecordResult, BulkResponse, acceptBulk } from './bulk-records';

/** Accepting event records, one or a bulk of them: shared by `/event/` and the SDKs' `/v2/event/` and `/v2/bulk/event/`. */
@Injectable()
export class EventIntake {
  constructor(private readonly acceptance: Acceptance) {}

  accept(workspace: AuthenticatedWorkspace, record: EventRecord, messageId?: string): Promise<Accepted> {
    return record.kind === 'identity'
      ? this.acceptance.acceptIdentityEvent(workspace, record.identity, 'api', messageId)
      : this.acceptance.acceptEvent(workspace, record.event, 'api', messageId);
  }

  /**
   * A bulk of up to 400 records (identity events come 400 to a call), each read by `read`.
   * acceptBulk takes at most 100 at a time, so the records go through it in slices,
   * keeping their order.
   */
  async acceptAll(
    workspace: AuthenticatedWorkspace,
    body: readonly unknown[],
    read: (record: unknown) => ParseResult<EventRecord>,
    messageIdAt: MessageIdAt,
  ): Promise<BulkResponse> {
    const sizeErrors = eventBulkSizeErrors(body);
    if (sizeErrors.length > 0) throw HeraldError.validation(sizeErrors);
    const records: BulkRecordResult[] = [];
    for (let start = 0; start < body.length; start += MAX_BULK_RECORDS) {
      const slice = await acceptBulk(body.slice(start, start + MAX_BULK_RECORDS), read, (record, index) => this.accept(workspace, record, messageIdAt(start + index)));
      records.push(...slice.records);
    }
    return { records, status: 'success' };
  }
}

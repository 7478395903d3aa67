import { Inject, Injectable } from '@nestjs/common';
import { DeliveryOutcome, FieldError, HeraldError } from '@herald/contracts';
import { AuthenticatedWorkspace, CLOCK, Clock } from '@herald/runtime';
import { RunHost } from '../runs/run-host';
import { MessageLogRepository, MessageStanding } from './message-log.repository';
import { BulkMessageUpdate, MESSAGE_ACTIONS } from './request-bodies';

type Action = (typeof MESSAGE_ACTIONS)[number];
const STATUS_OF: Partial<Record<Action, 'seen' | 'clicked'>> = { seen: 'seen', read: 'seen', clicked: 'clicked' };
/** One-way progression: a message is never moved back to an earlier status. */
const RANK: Record<string, number> = { seen: 1, clicked: 2 };

export interface BulkMessageResult {
  readonly message_id: string;
  readonly status_code: number;
  readonly error: { readonly type: string; readonly message: string } | null;
}

/**
 * `PATCH /v1/bulk/message/` (reference `bulk-update-messages`, the Node SDK's
 * `messages.bulk_update`): `seen`, `read` (as seen) and `clicked` are fed to each
 * message's run as a delivery outcome, exactly as the inbox reports them, so the
 * message log and any smart-routing wait follow. The inbox-only flags (`dismissed`,
 * `unread`, `archived`, `unarchived`) are answered per record as not supported.
 */
@Injectable()
export class MessageBulkUpdate {
  constructor(
    private readonly messages: MessageLogRepository,
    private readonly runs: RunHost,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async apply(workspace: AuthenticatedWorkspace, body: BulkMessageUpdate): Promise<{ records: BulkMessageResult[] }> {
    const updates = requireDistinct(body.messages);
    const rows = await this.messages.standings(workspace.id, updates.map((update) => update.message_id));
    const byId = new Map(rows.map((row) => [row.deliveryId, row]));
    const records: BulkMessageResult[] = [];
    for (const update of updates) {
      const row = byId.get(update.message_id);
      const status = STATUS_OF[update.action];
      if (row === undefined) {
        records.push({ message_id: update.message_id, status_code: 404, error: { type: 'not_found', message: 'not found' } });
      } else if (status === undefined) {
        records.push({ message_id: update.message_id, status_code: 400, error: { type: 'unsupported_action', message: `${update.action} is not supported by Herald; use seen, read or clicked` } });
      } else {
        if ((RANK[row.status] ?? 0) < RANK[status]) await this.runs.deliveryOutcome(workspace.id, outcomeOf(workspace, row, status, this.clock.now()));
        records.push({ message_id: update.message_id, status_code: 202, error: null });
      }
    }
    return { records };
  }
}

function outcomeOf(workspace: AuthenticatedWorkspace, row: MessageStanding, status: 'seen' | 'clicked', now: Date): DeliveryOutcome {
  return { delivery_id: row.deliveryId, run_id: row.runId, message_id: row.messageId, workspace_slug: workspace.slug, channel: row.channel, status, at: now.toISOString() };
}

/** Each message once (the schema checked every field). */
function requireDistinct(updates: BulkMessageUpdate['messages']): BulkMessageUpdate['messages'] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  updates.forEach((update, index) => {
    if (seen.has(update.message_id)) errors.push({ path: `messages[${index}].message_id`, message: 'is repeated: each message once' });
    seen.add(update.message_id);
  });
  if (errors.length > 0) throw HeraldError.validation(errors);
  return updates;
}

import { Inject, Injectable } from '@nestjs/common';
import { DeliveryOutcome, FieldError, HeraldError } from '@herald/contracts';
import { AuthenticatedWorkspace, CLOCK, Clock } from '@herald/runtime';
import { RunHost } from '../runs/run-host';
import { MessageLog, MessageStanding } from './message-log';

/** The reference's actions; Herald applies the ones that are statuses (`read` counts as `seen`). */
const ACTIONS = ['seen', 'clicked', 'dismissed', 'read', 'unread', 'archived', 'unarchived'] as const;
type Action = (typeof ACTIONS)[number];
const STATUS_OF: Partial<Record<Action, 'seen' | 'clicked'>> = { seen: 'seen', read: 'seen', clicked: 'clicked' };
/** One-way progression: a message is never moved back to an earlier status. */
const RANK: Record<string, number> = { seen: 1, clicked: 2 };

export const MAX_BULK_MESSAGES = 1000;

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
    private readonly messages: MessageLog,
    private readonly runs: RunHost,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async apply(workspace: AuthenticatedWorkspace, body: unknown): Promise<{ records: BulkMessageResult[] }> {
    const updates = parseUpdates(body);
    const rows = await this.messages.standings(workspace.id, updates.map((update) => update.message_id));
    const byId = new Map(rows.map((row) => [row.delivery_id, row]));
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
  return { delivery_id: row.delivery_id, run_id: row.run_id, message_id: row.message_id, workspace_slug: workspace.slug, channel: row.channel, status, at: now.toISOString() };
}

function parseUpdates(body: unknown): Array<{ message_id: string; action: Action }> {
  const messages = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).messages : undefined;
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > MAX_BULK_MESSAGES) {
    throw HeraldError.validation([{ path: 'messages', message: `must be an array of 1 to ${MAX_BULK_MESSAGES} {message_id, action}` }]);
  }
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const updates = messages.map((entry: unknown, index) => {
    const record = typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? (entry as Record<string, unknown>) : undefined;
    if (record === undefined) errors.push({ path: `messages[${index}]`, message: 'must be an object {message_id, action}' });
    const id = record?.message_id;
    const action = record?.action;
    if (record !== undefined && (typeof id !== 'string' || id === '')) errors.push({ path: `messages[${index}].message_id`, message: 'must be a message id' });
    else if (typeof id === 'string' && seen.has(id)) errors.push({ path: `messages[${index}].message_id`, message: 'is repeated: each message once' });
    if (typeof id === 'string') seen.add(id);
    if (record !== undefined && !ACTIONS.includes(action as Action)) errors.push({ path: `messages[${index}].action`, message: `must be one of ${ACTIONS.join(', ')}` });
    return { message_id: id as string, action: action as Action };
  });
  if (errors.length > 0) throw HeraldError.validation(errors);
  return updates;
}

import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { openMigratedSchema } from '@herald/database';
import { databaseTargets } from '@herald/testing';
import { ENGINE_ENTITIES, LoggedMessage, LoggedMessageEntity } from '../persistence/entities';
import { ENGINE_MIGRATIONS } from '../persistence/migrations';
import { MessageCounts, StatsQuery } from './message-stats';
import { MessageStatsRepository } from './message-stats.repository';

describe.each(databaseTargets())('the message stats repository ($kind)', (target) => {
  let db: DataSource;
  let close: () => Promise<void>;
  let stats: MessageStatsRepository;

  beforeAll(async () => {
    ({ db, close } = await openMigratedSchema(target, { schema: 'engine', migrations: ENGINE_MIGRATIONS, entities: ENGINE_ENTITIES }));
    stats = new MessageStatsRepository(db);
  });
  afterAll(async () => {
    await close?.();
  });

  const at = (hour: number, minute = 0): Date => new Date(Date.UTC(2026, 2, 1, hour, minute));
  const message = (workspaceId: string, fields: Partial<LoggedMessage> = {}): LoggedMessage => ({
    deliveryId: randomUUID(),
    workspaceId,
    runId: 'run-1',
    messageId: randomUUID(),
    workflowSlug: 'welcome',
    workflowVersion: 1,
    nodeName: 'send',
    channel: 'email',
    recipientType: 'user',
    distinctId: 'ada',
    objectType: null,
    objectId: null,
    tenantId: null,
    category: null,
    idempotencyKey: null,
    templateSlug: 'welcome',
    channelIdentity: {},
    status: 'delivered',
    failureReason: null,
    vendor: 'email/smtp',
    attempts: 1,
    nextAttemptAt: null,
    warnings: null,
    createdAt: at(10),
    updatedAt: at(10),
    triggeredAt: null,
    deliveredAt: null,
    seenAt: null,
    clickedAt: null,
    ...fields,
  });
  const logged = (...messages: LoggedMessage[]) => db.getRepository(LoggedMessageEntity).save(messages);
  const counts = (fields: Partial<MessageCounts>): MessageCounts => ({ total: 0, sent: 0, delivered: 0, seen: 0, clicked: 0, failed: 0, skipped: 0, in_flight: 0, retrying: 0, ...fields });
  const window = (fields: Partial<StatsQuery> = {}): StatsQuery => ({ bucket: 'hour', from: at(10), to: at(12), ...fields });

  it('counts the window as a funnel, by channel, vendor, workflow and reason, and per bucket', async () => {
    const workspace = randomUUID();
    await logged(
      message(workspace, { status: 'delivered', createdAt: at(10) }),
      message(workspace, { status: 'clicked', createdAt: at(10, 30) }),
      message(workspace, { status: 'delivered', seenAt: at(11), createdAt: at(11) }),
      message(workspace, { status: 'bounced', failureReason: 'mailbox unknown', createdAt: at(11) }),
      message(workspace, { status: 'delivery_failure', failureReason: 'mailbox unknown', vendor: 'email/sendgrid', createdAt: at(11) }),
      message(workspace, { channel: 'sms', vendor: null, status: 'not_sent', failureReason: 'preference: opted out of sms', workflowSlug: 'digest', createdAt: at(12) }),
      message(workspace, { channel: 'sms', vendor: null, status: 'not_sent', failureReason: 'no_identity: no phone', workflowSlug: 'digest', createdAt: at(12) }),
      message(workspace, { channel: 'sms', vendor: null, status: 'not_sent', failureReason: 'preference: opted out', workflowSlug: 'digest', createdAt: at(12) }),
      message(workspace, { channel: 'inbox', vendor: 'inbox/herald', status: 'triggered', nextAttemptAt: at(13), createdAt: at(12) }),
      message(workspace, { channel: 'inbox', vendor: null, status: 'triggered', createdAt: at(12) }),
      // Outside the window, and another workspace's.
      message(workspace, { createdAt: at(9, 59) }),
      message(workspace, { createdAt: at(12, 1) }),
      message(randomUUID(), { createdAt: at(11) }),
    );

    const answer = await stats.stats(workspace, window());
    expect(answer.meta).toEqual({ bucket: 'hour', from: at(10).toISOString(), to: at(12).toISOString(), channel: null, workflow_slug: null });
    expect(answer.totals).toEqual(counts({ total: 10, sent: 4, delivered: 3, seen: 2, clicked: 1, failed: 2, skipped: 3, in_flight: 2, retrying: 1 }));
    expect(answer.by_channel).toEqual([
      { channel: 'email', ...counts({ total: 5, sent: 4, delivered: 3, seen: 2, clicked: 1, failed: 2 }) },
      { channel: 'sms', ...counts({ total: 3, skipped: 3 }) },
      { channel: 'inbox', ...counts({ total: 2, in_flight: 2, retrying: 1 }) },
    ]);
    expect(answer.by_vendor.map((row) => [row.vendor, row.total])).toEqual([
      ['email/smtp', 4],
      [null, 4],
      ['email/sendgrid', 1],
      ['inbox/herald', 1],
    ]);
    expect(answer.by_workflow.map((row) => [row.workflow_slug, row.total])).toEqual([
      ['welcome', 7],
      ['digest', 3],
    ]);
    expect(answer.skipped_by_reason).toEqual([
      { reason: 'preference', count: 2 },
      { reason: 'no_identity', count: 1 },
    ]);
    expect(answer.failed_by_reason).toEqual([{ reason: 'mailbox unknown', count: 2 }]);
    expect(answer.series.map((bucket) => [bucket.start, bucket.total, bucket.delivered])).toEqual([
      ['2026-03-01T10:00:00Z', 2, 2],
      ['2026-03-01T11:00:00Z', 3, 1],
      ['2026-03-01T12:00:00Z', 5, 0],
    ]);
  });

  it('narrows to a channel and a workflow, and buckets by the day', async () => {
    const workspace = randomUUID();
    await logged(
      message(workspace, { createdAt: at(10) }),
      message(workspace, { channel: 'sms', createdAt: at(11) }),
      message(workspace, { workflowSlug: 'digest', createdAt: new Date(Date.UTC(2026, 2, 3, 8)) }),
      message(workspace, { workflowSlug: 'digest', channel: 'sms', createdAt: new Date(Date.UTC(2026, 2, 3, 9)) }),
    );
    const days = { bucket: 'day' as const, from: new Date(Date.UTC(2026, 2, 1, 6)), to: new Date(Date.UTC(2026, 2, 3, 12)) };
    expect((await stats.stats(workspace, window({ ...days, channel: 'email' }))).series.map((bucket) => [bucket.start, bucket.total])).toEqual([
      ['2026-03-01T00:00:00Z', 1],
      ['2026-03-02T00:00:00Z', 0],
      ['2026-03-03T00:00:00Z', 1],
    ]);
    const digestSms = await stats.stats(workspace, window({ ...days, channel: 'sms', workflowSlug: 'digest' }));
    expect(digestSms.totals.total).toBe(1);
    expect(digestSms.meta).toMatchObject({ bucket: 'day', channel: 'sms', workflow_slug: 'digest' });
    expect(digestSms.by_workflow).toEqual([{ workflow_slug: 'digest', ...counts({ total: 1, sent: 1, delivered: 1 }) }]);
    const none = await stats.stats(randomUUID(), window());
    expect(none.totals).toEqual(counts({}));
    expect(none.by_channel).toEqual([]);
    expect(none.series).toHaveLength(3);
  });
});

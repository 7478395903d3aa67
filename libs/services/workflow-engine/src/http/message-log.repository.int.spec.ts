import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { openMigratedSchema } from '@herald/database';
import { databaseTargets } from '@herald/testing';
import { ENGINE_ENTITIES, LoggedMessage, LoggedMessageEntity } from '../persistence/entities';
import { ENGINE_MIGRATIONS } from '../persistence/migrations';
import { MessageLogRepository } from './message-log.repository';

describe.each(databaseTargets())('the message log repository ($kind)', (target) => {
  let db: DataSource;
  let close: () => Promise<void>;
  let log: MessageLogRepository;

  beforeAll(async () => {
    ({ db, close } = await openMigratedSchema(target, { schema: 'engine', migrations: ENGINE_MIGRATIONS, entities: ENGINE_ENTITIES }));
    log = new MessageLogRepository(db);
  });
  afterAll(async () => {
    await close?.();
  });

  let minute = 0;
  const message = (workspaceId: string, fields: Partial<LoggedMessage> = {}): LoggedMessage => {
    minute += 1;
    const at = new Date(Date.UTC(2026, 2, 1, 10, minute));
    return {
      deliveryId: randomUUID(),
      workspaceId,
      runId: 'run-1',
      messageId: randomUUID(),
      workflowSlug: 'welcome',
      workflowVersion: 2,
      nodeName: 'send_email',
      channel: 'email',
      recipientType: 'user',
      distinctId: 'ada',
      objectType: null,
      objectId: null,
      tenantId: null,
      category: 'transactional',
      idempotencyKey: null,
      templateSlug: 'welcome-mail',
      channelIdentity: { email: 'ada@example.com' },
      status: 'delivered',
      failureReason: null,
      vendor: 'email/smtp',
      attempts: 1,
      nextAttemptAt: null,
      warnings: [{ code: 'missing_variable', field: 'subject', variable: 'name' }],
      createdAt: at,
      updatedAt: at,
      triggeredAt: at,
      deliveredAt: at,
      seenAt: null,
      clickedAt: null,
      ...fields,
    };
  };
  const logged = async (...messages: LoggedMessage[]): Promise<LoggedMessage[]> => {
    await db.getRepository(LoggedMessageEntity).save(messages);
    return messages;
  };

  it('answers where messages stand, only the workspace\'s and only known ids', async () => {
    const workspace = randomUUID();
    const [mine] = await logged(message(workspace, { status: 'seen', channel: 'inbox' }), message(randomUUID()));
    expect(await log.standings(workspace, [mine.deliveryId, randomUUID()])).toEqual([
      { deliveryId: mine.deliveryId, runId: 'run-1', messageId: mine.messageId, channel: 'inbox', status: 'seen' },
    ]);
    expect(await log.standings(workspace, [])).toEqual([]);
  });

  it('counts and pages by every filter, newest first from a cursor, or oldest first before one', async () => {
    const workspace = randomUUID();
    const trigger = randomUUID();
    const rows = await logged(
      message(workspace, { messageId: trigger }),
      message(workspace, { messageId: trigger, status: 'bounced', tenantId: 'acme' }),
      message(workspace, { messageId: trigger, channel: 'sms', distinctId: 'bob' }),
      message(workspace),
    );
    const byTrigger = { messageOrTriggerId: trigger };
    expect(await log.count(workspace, byTrigger)).toBe(3);
    expect(await log.count(workspace, { messageOrTriggerId: rows[3].deliveryId })).toBe(1);
    expect(await log.count(workspace, { ...byTrigger, statuses: ['delivery_failure', 'bounced'] })).toBe(1);
    expect(await log.count(workspace, { ...byTrigger, distinctIds: ['bob'], channel: 'sms' })).toBe(1);
    expect(await log.count(workspace, { tenantId: 'acme', createdFrom: rows[1].createdAt, createdTo: rows[1].createdAt })).toBe(1);
    expect(await log.count(workspace, { categories: ['marketing'] })).toBe(0);

    const newest = await log.page(workspace, byTrigger, undefined, true, 2);
    expect(newest.map((m) => m.deliveryId)).toEqual([rows[2].deliveryId, rows[1].deliveryId]);
    expect(newest[1]).toEqual(rows[1]);
    const older = await log.page(workspace, byTrigger, { createdAt: rows[1].createdAt.toISOString(), deliveryId: rows[1].deliveryId }, true, 2);
    expect(older.map((m) => m.deliveryId)).toEqual([rows[0].deliveryId]);
    const newer = await log.page(workspace, byTrigger, { createdAt: rows[0].createdAt.toISOString(), deliveryId: rows[0].deliveryId }, false, 5);
    expect(newer.map((m) => m.deliveryId)).toEqual([rows[1].deliveryId, rows[2].deliveryId]);
  });

  it('lists a page newest first, saying whether there are messages past it on either side', async () => {
    const workspace = randomUUID();
    const rows = await logged(message(workspace), message(workspace), message(workspace), message(workspace, { channel: 'sms' }), message(randomUUID()));
    const ids = (page: { messages: readonly LoggedMessage[] }) => page.messages.map((m) => m.deliveryId);
    const cursorOf = (row: LoggedMessage) => ({ createdAt: row.createdAt.toISOString(), deliveryId: row.deliveryId });
    const email = { channel: 'email' };

    const newest = await log.list(workspace, email, undefined, true, 2);
    expect(newest).toMatchObject({ count: 3, hasPrev: false, hasNext: true });
    expect(ids(newest)).toEqual([rows[2].deliveryId, rows[1].deliveryId]);
    expect(newest.messages[0]).toEqual(rows[2]);
    const older = await log.list(workspace, email, cursorOf(rows[1]), true, 2);
    expect(older).toMatchObject({ count: 3, hasPrev: true, hasNext: false });
    expect(ids(older)).toEqual([rows[0].deliveryId]);
    // Before the oldest: the newer ones, still newest first, the page nearest the cursor.
    const newer = await log.list(workspace, email, cursorOf(rows[0]), false, 1);
    expect(newer).toMatchObject({ hasPrev: true, hasNext: true });
    expect(ids(newer)).toEqual([rows[1].deliveryId]);
    const newest2 = await log.list(workspace, email, cursorOf(rows[0]), false, 5);
    expect(newest2).toMatchObject({ hasPrev: false, hasNext: true });
    expect(ids(newest2)).toEqual([rows[2].deliveryId, rows[1].deliveryId]);
    // Past the end, a page is empty and points nowhere.
    expect(await log.list(workspace, email, cursorOf(rows[0]), true, 2)).toEqual({ count: 3, messages: [], hasPrev: false, hasNext: false });
    expect(await log.list(randomUUID(), {}, undefined, true, 2)).toEqual({ count: 0, messages: [], hasPrev: false, hasNext: false });
  });

  it('reads every message of some runs, oldest first, within the workspace', async () => {
    const workspace = randomUUID();
    const rows = await logged(message(workspace, { runId: 'run-a' }), message(workspace, { runId: 'run-b' }), message(workspace, { runId: 'run-c' }), message(randomUUID(), { runId: 'run-a' }));
    expect((await log.ofRuns(workspace, ['run-a', 'run-b'])).map((m) => m.deliveryId)).toEqual([rows[0].deliveryId, rows[1].deliveryId]);
    expect(await log.ofRuns(workspace, [])).toEqual([]);
  });
});

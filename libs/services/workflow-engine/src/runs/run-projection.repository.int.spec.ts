import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DeliveryOutcome } from '@herald/contracts';
import { SqlWriter, StatementBatch } from '@herald/database';
import { databaseTargets } from '@herald/testing';
import { IndexedRunEntity, LoggedMessageEntity } from '../persistence/entities';
import { openEngineDatabase } from '../testing/repository-database';
import { AdmissionRow, FailedRunMessageRow, MessageRow, RunProjectionRepository, RunRow, WaitRow } from './run-projection.repository';

describe.each(databaseTargets())('the run projection repository ($kind)', (target) => {
  let db: DataSource;
  let close: () => Promise<void>;
  let projection: RunProjectionRepository;

  beforeAll(async () => {
    ({ db, close } = await openEngineDatabase(target));
    projection = new RunProjectionRepository(db);
  });
  afterAll(async () => {
    await close?.();
  });

  /** Runs the writes as the append does: recorded on a StatementBatch, then sent as one transaction. */
  async function inAppend(write: (tx: SqlWriter) => Promise<void>): Promise<void> {
    const batch = new StatementBatch();
    await write(batch);
    await batch.run(db);
  }

  const runRow = (fields: Partial<RunRow> = {}): RunRow => {
    const runId = randomUUID();
    return {
      run_id: runId,
      workspace_id: randomUUID(),
      stream_id: `run-${runId}`,
      message_id: randomUUID(),
      workflow_slug: 'welcome',
      workflow_version: 2,
      recipient_type: 'user',
      distinct_id: 'ada',
      object_type: null,
      object_id: null,
      tenant_id: null,
      idempotency_key: null,
      status: 'running',
      started_at: '2026-03-01T10:00:00.000Z',
      ...fields,
    };
  };
  const messageRow = (fields: Partial<MessageRow> = {}): MessageRow => ({
    delivery_id: randomUUID(),
    workspace_id: randomUUID(),
    run_id: randomUUID(),
    message_id: randomUUID(),
    workflow_slug: 'welcome',
    workflow_version: 2,
    node_name: 'mail',
    channel: 'email',
    recipient_type: 'user',
    distinct_id: 'ada',
    object_type: null,
    object_id: null,
    tenant_id: null,
    category: 'account',
    idempotency_key: null,
    template_slug: 'welcome-mail',
    channel_identity: JSON.stringify({ email: [{ email: 'ada@example.com' }] }),
    status: 'triggered',
    failure_reason: null,
    at: '2026-03-01T10:00:00.000Z',
    ...fields,
  });
  const outcome = (deliveryId: string, fields: Partial<DeliveryOutcome>): DeliveryOutcome => ({
    delivery_id: deliveryId,
    run_id: randomUUID(),
    message_id: randomUUID(),
    workspace_slug: 'acme',
    channel: 'email',
    status: 'sent_by_vendor',
    at: '2026-03-01T10:01:00.000Z',
    ...fields,
  });
  const runOf = (runId: string) => db.getRepository(IndexedRunEntity).findOneByOrFail({ runId });
  const messageOf = (deliveryId: string) => db.getRepository(LoggedMessageEntity).findOneByOrFail({ deliveryId });
  const rowVersion = async (table: 'runs' | 'messages', key: string): Promise<string> => {
    const [row] = await db.query<Array<{ xmin: string }>>(`SELECT xmin::text AS xmin FROM engine.${table} WHERE ${table === 'runs' ? 'run_id' : 'delivery_id'} = $1`, [key]);
    return row.xmin;
  };

  it('sends no statement for a batch with no rows of a kind', async () => {
    const batch = new StatementBatch();
    await projection.insertRuns(batch, []);
    await projection.insertAdmissions(batch, []);
    await projection.insertMessages(batch, []);
    await projection.recordRetrying(batch, []);
    await projection.recordSettled(batch, []);
    await projection.updateStatuses(batch, []);
    expect(batch.length).toBe(0);
  });

  it('inserts a batch of runs in one statement, updated_at from started_at, and leaves a run already indexed as it is', async () => {
    const ada = runRow({ tenant_id: 'acme', idempotency_key: 'k-1' });
    const box = runRow({ recipient_type: 'object', distinct_id: null, object_type: 'team', object_id: 'eng', status: 'completed' });
    const batch = new StatementBatch();
    await projection.insertRuns(batch, [ada, box]);
    expect(batch.length).toBe(1);
    await batch.run(db);
    await inAppend((tx) => projection.insertRuns(tx, [{ ...ada, status: 'failed', workflow_version: 9 }]));

    expect(await runOf(ada.run_id)).toEqual({
      runId: ada.run_id,
      workspaceId: ada.workspace_id,
      streamId: ada.stream_id,
      messageId: ada.message_id,
      workflowSlug: 'welcome',
      workflowVersion: 2,
      recipientType: 'user',
      distinctId: 'ada',
      objectType: null,
      objectId: null,
      tenantId: 'acme',
      idempotencyKey: 'k-1',
      status: 'running',
      outcomeReason: null,
      startedAt: new Date(ada.started_at),
      updatedAt: new Date(ada.started_at),
    });
    expect(await runOf(box.run_id)).toMatchObject({ recipientType: 'object', distinctId: null, objectType: 'team', objectId: 'eng', status: 'completed' });
  });

  it('sets a run\'s outcome reason, and its status only where it changes (an unchanged run keeps its row version)', async () => {
    const moved = runRow();
    const still = runRow();
    await inAppend((tx) => projection.insertRuns(tx, [moved, still]));
    const stillVersion = await rowVersion('runs', still.run_id);

    await inAppend(async (tx) => {
      await projection.setOutcomeReason(tx, moved.run_id, 'send (Mail): no variant');
      await projection.updateStatuses(tx, [
        { runId: moved.run_id, status: 'failed', at: '2026-03-01T10:05:00.000Z' },
        { runId: still.run_id, status: 'running', at: still.started_at },
        { runId: randomUUID(), status: 'failed', at: '2026-03-01T10:05:00.000Z' },
      ]);
    });

    expect(await runOf(moved.run_id)).toMatchObject({ status: 'failed', outcomeReason: 'send (Mail): no variant', updatedAt: new Date('2026-03-01T10:05:00.000Z') });
    expect(await runOf(still.run_id)).toMatchObject({ status: 'running', outcomeReason: null, updatedAt: new Date(still.started_at) });
    expect(await rowVersion('runs', still.run_id)).toBe(stillVersion);
  });

  it('records admissions once, and reads a recipient\'s admissions of the last day for one workflow, oldest first', async () => {
    const workspace = randomUUID();
    const hoursAgo = (hours: number): string => new Date(Date.now() - hours * 3_600_000).toISOString();
    const admission = (admittedAt: string, fields: Partial<AdmissionRow> = {}): AdmissionRow => ({
      workspace_id: workspace,
      workflow_slug: 'digest',
      recipient_key: 'user:ada',
      run_id: randomUUID(),
      admitted_at: admittedAt,
      ...fields,
    });
    const recent = admission(hoursAgo(1));
    const earlier = admission(hoursAgo(3));
    const batch = new StatementBatch();
    await projection.insertAdmissions(batch, [
      recent,
      earlier,
      admission(hoursAgo(25)),
      admission(hoursAgo(2), { workflow_slug: 'welcome' }),
      admission(hoursAgo(2), { recipient_key: 'user:bob' }),
      admission(hoursAgo(2), { workspace_id: randomUUID() }),
    ]);
    expect(batch.length).toBe(1);
    await batch.run(db);
    await inAppend((tx) => projection.insertAdmissions(tx, [{ ...recent, admitted_at: hoursAgo(0.5) }]));

    expect(await projection.recentAdmissions(workspace, 'digest', 'user:ada')).toEqual([new Date(earlier.admitted_at), new Date(recent.admitted_at)]);
    expect(await projection.recentAdmissions(workspace, 'digest', 'user:cyd')).toEqual([]);
  });

  it('inserts a batch of message rows in one statement, a delivery already logged left as it is', async () => {
    const sent = messageRow({ tenant_id: 'acme', idempotency_key: 'k-1' });
    const skipped = messageRow({ channel: 'sms', channel_identity: '{}', status: 'not_sent', failure_reason: 'no_identity: no phone number' });
    const batch = new StatementBatch();
    await projection.insertMessages(batch, [sent, skipped]);
    expect(batch.length).toBe(1);
    await batch.run(db);
    await inAppend((tx) => projection.insertMessages(tx, [{ ...sent, status: 'not_sent', template_slug: 'other' }]));

    expect(await messageOf(sent.delivery_id)).toMatchObject({
      workspaceId: sent.workspace_id,
      runId: sent.run_id,
      messageId: sent.message_id,
      workflowSlug: 'welcome',
      workflowVersion: 2,
      nodeName: 'mail',
      channel: 'email',
      recipientType: 'user',
      distinctId: 'ada',
      tenantId: 'acme',
      category: 'account',
      idempotencyKey: 'k-1',
      templateSlug: 'welcome-mail',
      channelIdentity: { email: [{ email: 'ada@example.com' }] },
      status: 'triggered',
      failureReason: null,
      createdAt: new Date(sent.at),
      updatedAt: new Date(sent.at),
    });
    expect(await messageOf(skipped.delivery_id)).toMatchObject({ channel: 'sms', channelIdentity: {}, status: 'not_sent', failureReason: 'no_identity: no phone number' });
  });

  it('logs a run that failed before sending as one not_sent row, only while the run has no message row', async () => {
    const failed = (runId: string): FailedRunMessageRow => {
      const { channel_identity: _identity, status: _status, ...row } = messageRow({ run_id: runId });
      return { ...row, failure_reason: 'run_failed: fetch (Profile): 500' };
    };
    const lonely = failed(randomUUID());
    await inAppend((tx) => projection.insertFailedBeforeSending(tx, lonely));
    const sentRun = randomUUID();
    await inAppend((tx) => projection.insertMessages(tx, [messageRow({ run_id: sentRun })]));
    const late = failed(sentRun);
    await inAppend((tx) => projection.insertFailedBeforeSending(tx, late));

    expect(await messageOf(lonely.delivery_id)).toMatchObject({
      runId: lonely.run_id,
      channel: 'email',
      templateSlug: 'welcome-mail',
      channelIdentity: {},
      status: 'not_sent',
      failureReason: 'run_failed: fetch (Profile): 500',
      createdAt: new Date(lonely.at),
      updatedAt: new Date(lonely.at),
    });
    expect(await db.getRepository(LoggedMessageEntity).countBy({ runId: sentRun })).toBe(1);
    expect(await db.getRepository(LoggedMessageEntity).findOneBy({ deliveryId: late.delivery_id })).toBeNull();
  });

  it('indexes waits: the runs of a recipient waiting for an event, oldest wait first, until their wait ends', async () => {
    const workspace = randomUUID();
    const wait = (since: string, fields: Partial<WaitRow> = {}): WaitRow => {
      const runId = randomUUID();
      return { run_id: runId, workspace_id: workspace, recipient_key: 'user:ada', event_name: 'order.paid', stream_id: `run-${runId}`, since, ...fields };
    };
    const later = wait('2026-03-01T10:05:00.000Z');
    const first = wait('2026-03-01T10:00:00.000Z');
    await inAppend(async (tx) => {
      await projection.insertWait(tx, later);
      await projection.insertWait(tx, first);
      await projection.insertWait(tx, wait('2026-03-01T09:00:00.000Z', { event_name: 'order.shipped' }));
      await projection.insertWait(tx, wait('2026-03-01T09:00:00.000Z', { recipient_key: 'user:bob' }));
      await projection.insertWait(tx, wait('2026-03-01T09:00:00.000Z', { workspace_id: randomUUID() }));
    });
    // A wait already recorded for the run is kept.
    await inAppend((tx) => projection.insertWait(tx, { ...later, since: '2026-03-01T08:00:00.000Z' }));

    expect(await projection.waitingRuns(workspace, 'user:ada', 'order.paid')).toEqual([
      { runId: first.run_id, streamId: first.stream_id },
      { runId: later.run_id, streamId: later.stream_id },
    ]);

    await inAppend((tx) => projection.deleteWait(tx, first.run_id));
    expect(await projection.waitingRuns(workspace, 'user:ada', 'order.paid')).toEqual([{ runId: later.run_id, streamId: later.stream_id }]);
    expect(await projection.waitingRuns(workspace, 'user:cyd', 'order.paid')).toEqual([]);
  });

  it('records retrying outcomes while the delivery is still triggered, never behind a later attempt or a final outcome', async () => {
    const retried = messageRow();
    const settled = messageRow();
    await inAppend((tx) => projection.insertMessages(tx, [retried, settled]));
    await inAppend((tx) => projection.recordSettled(tx, [outcome(settled.delivery_id, { status: 'delivered', vendor: 'email/ses' })]));

    const warnings = [{ code: 'missing_variable', field: 'subject', variable: 'name' }] as const;
    const batch = new StatementBatch();
    await projection.recordRetrying(batch, [
      outcome(retried.delivery_id, {
        status: 'retrying',
        attempts: 2,
        next_attempt_at: '2026-03-01T10:03:00.000Z',
        error: { message: 'throttled', retryable: true },
        vendor: 'email/ses',
        warnings,
      }),
      outcome(settled.delivery_id, { status: 'retrying', attempts: 3, error: { message: 'late', retryable: true } }),
    ]);
    expect(batch.length).toBe(1);
    await batch.run(db);
    // A late report of an earlier attempt changes nothing.
    await inAppend((tx) =>
      projection.recordRetrying(tx, [outcome(retried.delivery_id, { status: 'retrying', attempts: 1, error: { message: 'first try', retryable: true }, at: '2026-03-01T10:02:00.000Z' })]),
    );

    expect(await messageOf(retried.delivery_id)).toMatchObject({
      status: 'triggered',
      attempts: 2,
      nextAttemptAt: new Date('2026-03-01T10:03:00.000Z'),
      failureReason: 'throttled',
      vendor: 'email/ses',
      warnings,
      updatedAt: new Date('2026-03-01T10:01:00.000Z'),
    });
    expect(await messageOf(settled.delivery_id)).toMatchObject({ status: 'delivered', attempts: null, failureReason: null });
  });

  it('records settled outcomes: status, vendor and failure, each timestamp once, and a late receipt never hiding an engagement', async () => {
    const delivered = messageRow();
    const clicked = messageRow();
    const failed = messageRow();
    await inAppend((tx) => projection.insertMessages(tx, [delivered, clicked, failed]));
    await inAppend((tx) =>
      projection.recordRetrying(tx, [outcome(failed.delivery_id, { status: 'retrying', attempts: 1, next_attempt_at: '2026-03-01T10:02:00.000Z', error: { message: 'throttled', retryable: true } })]),
    );

    const batch = new StatementBatch();
    await projection.recordSettled(batch, [
      outcome(delivered.delivery_id, { status: 'delivered', vendor: 'email/ses', at: '2026-03-01T10:01:00.000Z' }),
      outcome(clicked.delivery_id, { status: 'clicked', at: '2026-03-01T10:01:00.000Z' }),
      outcome(failed.delivery_id, { status: 'delivery_failure', attempts: 3, error: { message: 'mailbox full', retryable: false }, vendor: 'email/ses' }),
    ]);
    expect(batch.length).toBe(1);
    await batch.run(db);
    await inAppend(async (tx) => {
      // A second delivered keeps the first timestamps; seen keeps the failure it had; a delivered after a click keeps the click.
      await projection.recordSettled(tx, [
        outcome(delivered.delivery_id, { status: 'delivered', at: '2026-03-01T10:09:00.000Z' }),
        outcome(clicked.delivery_id, { status: 'delivered', vendor: 'email/ses', at: '2026-03-01T10:02:00.000Z' }),
        outcome(failed.delivery_id, { status: 'seen', at: '2026-03-01T10:03:00.000Z' }),
      ]);
    });

    expect(await messageOf(delivered.delivery_id)).toMatchObject({
      status: 'delivered',
      vendor: 'email/ses',
      triggeredAt: new Date('2026-03-01T10:01:00.000Z'),
      deliveredAt: new Date('2026-03-01T10:01:00.000Z'),
      updatedAt: new Date('2026-03-01T10:09:00.000Z'),
    });
    expect(await messageOf(clicked.delivery_id)).toMatchObject({
      status: 'clicked',
      vendor: 'email/ses',
      clickedAt: new Date('2026-03-01T10:01:00.000Z'),
      triggeredAt: new Date('2026-03-01T10:02:00.000Z'),
      deliveredAt: new Date('2026-03-01T10:02:00.000Z'),
    });
    expect(await messageOf(failed.delivery_id)).toMatchObject({
      status: 'seen',
      failureReason: 'mailbox full',
      attempts: 3,
      nextAttemptAt: null,
      seenAt: new Date('2026-03-01T10:03:00.000Z'),
      triggeredAt: null,
    });
  });
});

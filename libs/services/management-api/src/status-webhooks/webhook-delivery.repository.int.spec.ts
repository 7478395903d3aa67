import { randomBytes, randomUUID } from 'node:crypto';
import { DeliveryStatus, TOPICS, messageStatusOf } from '@herald/contracts';
import { databaseTargets } from '@herald/testing';
import { MANAGEMENT_OUTBOX } from '../management-events/management-events';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { openManagementDatabase } from '../testing/repository-database';
import { StatusEventToRecord, WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookEndpointRepository } from './webhook-endpoint.repository';

describe.each(databaseTargets())('the webhook delivery repository ($kind)', (target) => {
  let database: Awaited<ReturnType<typeof openManagementDatabase>>;
  let deliveries: WebhookDeliveryRepository;
  let endpoints: WebhookEndpointRepository;

  beforeAll(async () => {
    database = await openManagementDatabase(target);
    deliveries = new WebhookDeliveryRepository(database.db);
    endpoints = new WebhookEndpointRepository(database.db);
  });
  afterAll(async () => {
    await database?.close();
  });

  function statusEvent(workspace: ScopedWorkspace, deliveryId: string, status: DeliveryStatus, workflow = 'welcome', eventId = randomUUID()): StatusEventToRecord {
    const outcome = { delivery_id: deliveryId, run_id: 'r', message_id: 'm', workspace_slug: workspace.slug, channel: 'email' as const, status, workflow_slug: workflow, at: new Date().toISOString() };
    return { event: messageStatusOf(outcome, workspace.id, eventId), workspaceId: workspace.id, key: `${workspace.id}:u` };
  }
  async function endpoint(workspace: ScopedWorkspace, eventTypes: string[], extra: { workflows?: string[]; enabled?: boolean } = {}): Promise<string> {
    const created = await endpoints.create(
      workspace,
      randomUUID(),
      { url: 'http://127.0.0.1:1/', description: '', eventTypes, workflows: extra.workflows ?? [], channels: [], categories: [], enabled: extra.enabled ?? true },
      randomBytes(8),
      'x',
    );
    return created!.id;
  }
  const claimAll = (owner: string, leaseMs = 60_000): ReturnType<WebhookDeliveryRepository['claimDue']> => deliveries.claimDue(owner, 100, leaseMs);
  const ofWorkspace = async <T extends { endpointId: string }>(claimed: T[], ids: string[]): Promise<T[]> => claimed.filter((c) => ids.includes(c.endpointId));

  // First, while the queue is empty: nothing due must read as "nothing", or the sender polls without pause.
  it('reports nothing due on an empty queue, then when the next delivery, lease or retry is due', async () => {
    expect(await deliveries.nextDueInMs()).toBeUndefined();
    const workspace = await database.newWorkspace();
    const id = await endpoint(workspace, ['delivered']);
    await deliveries.recordStatusEvents([statusEvent(workspace, 'due-1', 'delivered')]);
    expect(await deliveries.nextDueInMs()).toBe(0);
    const [claimed] = await ofWorkspace(await claimAll('owner-a', 60_000), [id]);
    expect(await deliveries.nextDueInMs()).toBeGreaterThan(50_000);
    expect(await deliveries.nextDueInMs()).toBeLessThanOrEqual(60_000);
    const retry = { id: claimed.id, attempt: 1, state: 'pending' as const, nextAttemptAt: new Date(Date.now() + 30_000), startedAt: new Date(), statusCode: 503, latencyMs: 1, error: 'answered 503' };
    await deliveries.recordAttempts('owner-a', [retry]);
    expect(await deliveries.nextDueInMs()).toBeGreaterThan(20_000);
    expect(await deliveries.nextDueInMs()).toBeLessThanOrEqual(30_000);
  });

  it('records each event once, announces it on notify.status.v1 and queues it for the matching enabled endpoints', async () => {
    const workspace = await database.newWorkspace();
    const all = await endpoint(workspace, ['delivered', 'seen']);
    const welcomeOnly = await endpoint(workspace, ['delivered'], { workflows: ['welcome'] });
    await endpoint(workspace, ['delivered'], { enabled: false });
    const delivered = statusEvent(workspace, 'd1', 'delivered');
    const other = statusEvent(workspace, 'd2', 'delivered', 'other');
    expect(await deliveries.recordStatusEvents([delivered, other, statusEvent(workspace, 'd1', 'retrying')])).toEqual({ recorded: 3, queued: 3 });
    expect(await deliveries.recordStatusEvents([delivered])).toEqual({ recorded: 0, queued: 0 });
    const outbox: Array<{ key: string; topic: string }> = await database.db.query(`SELECT topic, key FROM ${MANAGEMENT_OUTBOX} WHERE message_id = $1`, [delivered.event.event_id]);
    expect(outbox).toEqual([{ topic: TOPICS.messageStatus.name, key: `${workspace.id}:u` }]);
    const page = await deliveries.listDeliveries(all, { limit: 10, offset: 0 }, {});
    expect(page.count).toBe(2);
    expect(page.deliveries.map((d) => d.event.delivery_id).sort()).toEqual(['d1', 'd2']);
    expect((await deliveries.listDeliveries(welcomeOnly, { limit: 10, offset: 0 }, { state: 'pending' })).deliveries.map((d) => d.eventId)).toEqual([delivered.event.event_id]);
  });

  it("claims only the oldest open delivery of each endpoint and message, records attempts by the owner only, and reports when the next is due", async () => {
    const workspace = await database.newWorkspace();
    const id = await endpoint(workspace, ['sent_by_vendor', 'delivered']);
    const [first, second] = [statusEvent(workspace, 'm1', 'sent_by_vendor'), statusEvent(workspace, 'm1', 'delivered')];
    await deliveries.recordStatusEvents([first, second, statusEvent(workspace, 'm2', 'delivered')]);

    const claimed = await ofWorkspace(await claimAll('owner-a'), [id]);
    // The message m1's head and m2's only event; m1's second waits behind its head.
    expect(claimed.map((c) => c.eventId)).toHaveLength(2);
    expect(claimed.map((c) => c.eventId)).toContain(first.event.event_id);
    expect(claimed.map((c) => c.eventId)).not.toContain(second.event.event_id);
    expect(claimed.every((c) => c.attempt === 1 && JSON.parse(c.body).event_id === c.eventId)).toBe(true);
    expect(await ofWorkspace(await claimAll('owner-b'), [id])).toEqual([]);

    const head = claimed.find((c) => c.eventId === first.event.event_id)!;
    const retryAt = new Date(Date.now() + 60_000);
    const record = { id: head.id, attempt: 1, state: 'pending' as const, nextAttemptAt: retryAt, startedAt: new Date(), statusCode: 503, latencyMs: 12, error: 'answered 503' };
    await deliveries.recordAttempts('owner-b', [record]);
    await deliveries.recordAttempts('owner-a', [record]);
    const log = await deliveries.listDeliveries(id, { limit: 10, offset: 0 }, {});
    const headRow = log.deliveries.find((d) => d.id === head.id)!;
    expect(headRow).toMatchObject({ state: 'pending', attempts: 1, lastStatusCode: 503 });
    expect(headRow.attempts_log).toEqual([expect.objectContaining({ attempt: 1, statusCode: 503, latencyMs: 12, error: 'answered 503' })]);
    // The message's next event waits behind its retry.
    expect(await ofWorkspace(await claimAll('owner-a'), [id])).toEqual([]);
    const due = await deliveries.nextDueInMs();
    expect(due).toBeDefined();

    await database.db.query(`UPDATE management.webhook_deliveries SET next_attempt_at = now() WHERE id = $1`, [head.id]);
    const retried = await ofWorkspace(await claimAll('owner-a'), [id]);
    expect(retried.map((c) => [c.eventId, c.attempt])).toEqual([[first.event.event_id, 2]]);
    await deliveries.recordAttempts('owner-a', [{ ...record, attempt: 2, state: 'dead', statusCode: 500 }]);
    // Dead-lettered, it no longer holds the message back.
    expect((await ofWorkspace(await claimAll('owner-a', 1), [id])).map((c) => c.eventId)).toEqual([second.event.event_id]);
    // A claim whose lease ran out (its process died) is taken again by another owner.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await ofWorkspace(await claimAll('owner-c'), [id])).map((c) => [c.eventId, c.attempt])).toEqual([[second.event.event_id, 2]]);
  });

  it('replays one delivery or the deliveries first queued in a time range, after what is queued', async () => {
    const workspace = await database.newWorkspace();
    const id = await endpoint(workspace, ['delivered']);
    const since = new Date(Date.now() - 60_000);
    await deliveries.recordStatusEvents([statusEvent(workspace, 'r1', 'delivered'), statusEvent(workspace, 'r2', 'delivered')]);
    const [newest] = (await deliveries.listDeliveries(id, { limit: 1, offset: 0 }, {})).deliveries;
    const replay = await deliveries.replayOne(id, newest.id);
    expect(replay).toMatchObject({ replayOf: newest.id, eventId: newest.eventId, state: 'pending' });
    expect(await deliveries.replayOne(randomUUID(), newest.id)).toBeNull();
    const until = new Date(Date.now() + 60_000);
    expect(await deliveries.countInRange(id, since, until)).toBe(2);
    expect(await deliveries.replayRange(id, since, until)).toBe(2);
    expect(await deliveries.countInRange(id, until, new Date(until.getTime() + 1))).toBe(0);
    expect((await deliveries.listDeliveries(id, { limit: 10, offset: 0 }, {})).count).toBe(5);
  });
});

import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { openMigratedSchema } from '@herald/database';
import { EventStore } from '@herald/event-store';
import { databaseTargets } from '@herald/testing';
import { ENGINE_ENTITIES, IndexedRun, IndexedRunEntity } from '../persistence/entities';
import { ENGINE_MIGRATIONS } from '../persistence/migrations';
import { EngineEventStoreRepository } from '../runs/engine-event-store.repository';
import { RunIndexRepository } from './run-index.repository';

describe.each(databaseTargets())('the run index repository ($kind)', (target) => {
  let db: DataSource;
  let close: () => Promise<void>;
  let index: RunIndexRepository;

  beforeAll(async () => {
    ({ db, close } = await openMigratedSchema(target, { schema: 'engine', migrations: ENGINE_MIGRATIONS, entities: ENGINE_ENTITIES }));
    index = new RunIndexRepository(db, new EngineEventStoreRepository(db));
  });
  afterAll(async () => {
    await close?.();
  });

  let minute = 0;
  const run = (workspaceId: string, fields: Partial<IndexedRun> = {}): IndexedRun => {
    const runId = randomUUID();
    minute += 1;
    const at = new Date(Date.UTC(2026, 2, 1, 10, minute));
    return {
      runId,
      workspaceId,
      streamId: `run-${runId}`,
      messageId: randomUUID(),
      workflowSlug: 'welcome',
      workflowVersion: 3,
      recipientType: 'user',
      distinctId: 'ada',
      objectType: null,
      objectId: null,
      tenantId: null,
      idempotencyKey: null,
      status: 'running',
      outcomeReason: null,
      startedAt: at,
      updatedAt: at,
      ...fields,
    };
  };
  const indexed = async (...runs: IndexedRun[]): Promise<IndexedRun[]> => {
    await db.getRepository(IndexedRunEntity).insert(runs);
    return runs;
  };

  it('finds open runs by every filter given, oldest first, never another workspace\'s or a finished one', async () => {
    const workspace = randomUUID();
    const [first, second] = await indexed(
      run(workspace, { idempotencyKey: 'k-1' }),
      run(workspace, { idempotencyKey: 'k-1', distinctId: 'bob' }),
      run(workspace, { idempotencyKey: 'k-1', status: 'completed' }),
      run(randomUUID(), { idempotencyKey: 'k-1' }),
    );
    expect(await index.openRuns(workspace, { idempotency_key: 'k-1' })).toEqual([
      { runId: first.runId, streamId: first.streamId, status: 'running' },
      { runId: second.runId, streamId: second.streamId, status: 'running' },
    ]);
    expect((await index.openRuns(workspace, { idempotency_key: 'k-1', recipients: ['bob', 'cyd'] })).map((r) => r.runId)).toEqual([second.runId]);
    expect(await index.openRuns(workspace, { idempotency_key: 'k-1', workflow_slug: 'other' })).toEqual([]);
  });

  it('finds the open member runs of broadcasts, by list or by the broadcast\'s message id', async () => {
    const workspace = randomUUID();
    const broadcast = randomUUID();
    const [member] = await indexed(
      run(workspace, { workflowSlug: 'broadcast:list-a', messageId: broadcast }),
      run(workspace, { workflowSlug: 'broadcast:list-b' }),
      run(workspace, { workflowSlug: 'welcome', messageId: broadcast }),
    );
    expect(await index.openBroadcastRuns(workspace, { execution_id: broadcast })).toEqual([{ runId: member.runId, streamId: member.streamId, status: 'running', messageId: broadcast }]);
    expect((await index.openBroadcastRuns(workspace, { list_id: 'list-a' })).map((r) => r.runId)).toEqual([member.runId]);
    expect(await index.openBroadcastRuns(workspace, {})).toHaveLength(2);
  });

  it('follows a trigger: its runs newest first with the count of all, a run by id, and how many runs a message id started', async () => {
    const workspace = randomUUID();
    const trigger = randomUUID();
    const runs = await indexed(run(workspace, { messageId: trigger }), run(workspace, { messageId: trigger, outcomeReason: 'no channel' }), run(workspace, { messageId: trigger }));
    const followed = await index.follow(workspace, { messageId: trigger }, 2);
    expect(followed.count).toBe(3);
    expect(followed.runs.map((r) => r.runId)).toEqual([runs[2].runId, runs[1].runId]);
    expect(followed.runs[1]).toEqual(runs[1]);
    expect(await index.runsOfTrigger(workspace, trigger)).toBe(3);
    expect(await index.runsOfTrigger(randomUUID(), trigger)).toBe(0);
    expect(await index.run(workspace, runs[0].runId)).toEqual(runs[0]);
    expect(await index.run(randomUUID(), runs[0].runId)).toBeNull();
  });

  it('picks the streams a replay reads: the workflow\'s runs newest first within the window and recipients, at most the count', async () => {
    const workspace = randomUUID();
    const runs = await indexed(
      run(workspace, { workflowSlug: 'digest' }),
      run(workspace, { workflowSlug: 'digest', distinctId: 'bob' }),
      run(workspace, { workflowSlug: 'digest' }),
      run(workspace, { workflowSlug: 'other' }),
      run(randomUUID(), { workflowSlug: 'digest' }),
    );
    expect(await index.streamsToReplay(workspace, 'digest', { count: 2 })).toEqual([runs[2].streamId, runs[1].streamId]);
    expect(await index.streamsToReplay(workspace, 'digest', { count: 10, recipients: ['ada'] })).toEqual([runs[2].streamId, runs[0].streamId]);
    const window = { from: runs[1].startedAt.toISOString(), to: runs[2].startedAt.toISOString() };
    expect(await index.streamsToReplay(workspace, 'digest', { count: 10, ...window })).toEqual([runs[1].streamId]);
  });

  it('reads one run\'s log and several at once, in order', async () => {
    const store = new EventStore(db, 'engine');
    const [first, second] = [`run-${randomUUID()}`, `run-${randomUUID()}`];
    await store.append({ streamId: first, expectedPosition: 0, events: [{ type: 'run.started.v1', data: { n: 1 } }, { type: 'run.waited.v1', data: { n: 2 } }] });
    await store.append({ streamId: second, expectedPosition: 0, events: [{ type: 'run.started.v1', data: { n: 3 } }] });
    expect((await index.runLog(first)).map((event) => [event.position, event.type, event.data])).toEqual([
      [1, 'run.started.v1', { n: 1 }],
      [2, 'run.waited.v1', { n: 2 }],
    ]);
    const logs = await index.runLogs([first, second, `run-${randomUUID()}`]);
    expect(logs.get(first)?.map((event) => event.data)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(logs.get(second)?.map((event) => event.data)).toEqual([{ n: 3 }]);
  });
});

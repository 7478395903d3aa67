import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ReplayProgressed, TOPICS } from '@herald/contracts';
import { databaseTargets } from '@herald/testing';
import { MANAGEMENT_OUTBOX } from '../management-events/management-events';
import { openManagementDatabase } from '../testing/repository-database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { ReplayJobRepository } from './replay-job.repository';

describe.each(databaseTargets())('the replay job repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let now = new Date('2026-03-01T10:00:00Z');
  let jobs: ReplayJobRepository;
  let newWorkspace: () => Promise<ScopedWorkspace>;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    ({ db, newWorkspace } = opened);
    dispose = opened.close;
    jobs = new ReplayJobRepository(db, { now: () => now });
  });
  afterAll(async () => {
    await dispose?.();
  });

  const selection = { count: 4 };
  const progress = (job: { id: string; workspaceId: string }, chunk: number, fields: Partial<ReplayProgressed>): ReplayProgressed => ({
    job_id: job.id,
    workspace_id: job.workspaceId,
    chunk,
    total: 4,
    done: 0,
    results: [],
    ...fields,
  });

  it('creates a queued job and its request for the engine in one transaction', async () => {
    const workspace = await newWorkspace();
    const job = await jobs.create(workspace, 'welcome', { version: 'draft' }, { tree: { nodes: [] } }, selection);
    expect(job).toMatchObject({ workspaceId: workspace.id, workflowSlug: 'welcome', source: { version: 'draft' }, selection, status: 'queued', total: null, done: 0, summary: null, error: null });
    expect(job.createdAt).toBeInstanceOf(Date);
    const [request]: Array<{ topic: string; value: string }> = await db.query(`SELECT topic, value FROM ${MANAGEMENT_OUTBOX} WHERE message_id = $1`, [job.id]);
    expect(request.topic).toBe(TOPICS.replayRequested.name);
    expect(JSON.parse(request.value).payload).toEqual({ job_id: job.id, workspace_id: workspace.id, workflow_slug: 'welcome', definition: { tree: { nodes: [] } }, selection });
    expect(await jobs.get(workspace, 'welcome', job.id)).toEqual({ job });
  });

  it('applies each chunk once, counts up only, and answers the results in chunk order once done', async () => {
    const workspace = await newWorkspace();
    const job = await jobs.create(workspace, 'welcome', { version: 'live' }, {}, selection);
    now = new Date(now.getTime() + 1_000);
    await jobs.applyProgress(progress(job, 1, { done: 4, results: [{ run: 'c' }, { run: 'd' }] }));
    await jobs.applyProgress(progress(job, 0, { done: 2, results: [{ run: 'a' }, { run: 'b' }] }));
    // Redelivered: nothing changes, not even the count going back.
    await jobs.applyProgress(progress(job, 0, { done: 1, results: [{ run: 'x' }] }));
    expect((await jobs.get(workspace, 'welcome', job.id)).job).toMatchObject({ status: 'running', total: 4, done: 4, updatedAt: now });
    await jobs.applyProgress(progress(job, 2, { done: 4, results: [], summary: { changed: 1 } }));
    expect(await jobs.get(workspace, 'welcome', job.id)).toEqual({
      job: expect.objectContaining({ status: 'done', summary: { changed: 1 }, error: null }),
      results: [{ run: 'a' }, { run: 'b' }, { run: 'c' }, { run: 'd' }],
    });
  });

  it('fails a job on an error report, and ignores a report naming another workspace or no job', async () => {
    const workspace = await newWorkspace();
    const job = await jobs.create(workspace, 'welcome', { version: 'draft' }, {}, selection);
    await jobs.applyProgress(progress({ id: job.id, workspaceId: (await newWorkspace()).id }, 0, { done: 4, error: 'forged' }));
    await jobs.applyProgress(progress({ id: randomUUID(), workspaceId: workspace.id }, 0, { done: 4 }));
    expect((await jobs.get(workspace, 'welcome', job.id)).job).toMatchObject({ status: 'queued', done: 0, error: null });
    await jobs.applyProgress(progress(job, 0, { done: 1, error: 'the draft does not parse' }));
    expect((await jobs.get(workspace, 'welcome', job.id)).job).toMatchObject({ status: 'failed', error: 'the draft does not parse' });
  });

  it("answers 404 for a job of another workspace or workflow, or an id that is no UUID", async () => {
    const workspace = await newWorkspace();
    const job = await jobs.create(workspace, 'welcome', { version: 'draft' }, {}, selection);
    await expect(jobs.get(await newWorkspace(), 'welcome', job.id)).rejects.toThrow('not found');
    await expect(jobs.get(workspace, 'other', job.id)).rejects.toThrow('not found');
    await expect(jobs.get(workspace, 'welcome', 'not-a-uuid')).rejects.toThrow('not found');
  });
});

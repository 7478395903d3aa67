import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { databaseTargets } from '@herald/testing';
import { openIngestDatabase } from '../testing/repository-database';
import { AnnouncedWorkflow, WorkflowRepository } from './workflow.repository';

describe.each(databaseTargets())('the workflow repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let workflows: WorkflowRepository;

  beforeAll(async () => {
    const opened = await openIngestDatabase(target);
    db = opened.db;
    dispose = opened.close;
    workflows = new WorkflowRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const announced = (workspaceId: string, slug: string, fields: Partial<AnnouncedWorkflow> = {}): AnnouncedWorkflow => ({
    workspaceId,
    slug,
    isEnabled: true,
    triggerType: 'api',
    version: 1,
    payloadSchema: null,
    ...fields,
  });

  it("answers a workspace's live workflow by slug with its schema link, never another workspace's", async () => {
    const workspace = randomUUID();
    expect(await workflows.liveOf(workspace, 'welcome')).toBeNull();
    await workflows.save(announced(workspace, 'welcome', { payloadSchema: { schema: 'signup', version_no: 2 } }));
    await workflows.save(announced(workspace, 'digest', { isEnabled: false, triggerType: 'event' }));
    await workflows.save(announced(randomUUID(), 'other'));
    expect(await workflows.liveOf(workspace, 'welcome')).toEqual({ slug: 'welcome', isEnabled: true, triggerType: 'api', payloadSchema: { schema: 'signup', version_no: 2 } });
    expect(await workflows.liveOf(workspace, 'digest')).toEqual({ slug: 'digest', isEnabled: false, triggerType: 'event', payloadSchema: null });
    expect(await workflows.liveOf(workspace, 'other')).toBeNull();
  });

  it('applies each version once and in order: an older save or deletion changes nothing', async () => {
    const workspace = randomUUID();
    await workflows.save(announced(workspace, 'welcome', { version: 3, payloadSchema: { schema: 'third' } }));
    await workflows.save(announced(workspace, 'welcome', { version: 2, isEnabled: false }));
    await workflows.save(announced(workspace, 'welcome', { version: 3, isEnabled: false }));
    await workflows.remove(workspace, 'welcome', 3);
    expect(await workflows.liveOf(workspace, 'welcome')).toEqual({ slug: 'welcome', isEnabled: true, triggerType: 'api', payloadSchema: { schema: 'third' } });

    await workflows.save(announced(workspace, 'welcome', { version: 4, isEnabled: false, payloadSchema: null }));
    expect(await workflows.liveOf(workspace, 'welcome')).toEqual({ slug: 'welcome', isEnabled: false, triggerType: 'api', payloadSchema: null });
    await workflows.remove(workspace, 'welcome', 5);
    await workflows.remove(workspace, 'welcome', 5);
    expect(await workflows.liveOf(workspace, 'welcome')).toBeNull();
  });
});

import { DataSource } from 'typeorm';
import { DefinitionChanged } from '@herald/contracts';
import { databaseTargets } from '@herald/testing';
import { SchemaRepository } from '../schemas/schema.repository';
import { openManagementDatabase, definitionChangesOf } from '../testing/repository-database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { EventDefinitionRepository } from './event-definition.repository';

describe.each(databaseTargets())('the event definition repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let schemas: SchemaRepository;
  let events: EventDefinitionRepository;
  let newWorkspace: () => Promise<ScopedWorkspace>;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    ({ db, newWorkspace } = opened);
    dispose = opened.close;
    const clock = { now: () => new Date('2026-03-01T10:00:00Z') };
    schemas = new SchemaRepository(db, clock);
    events = new EventDefinitionRepository(db, schemas, clock);
  });
  afterAll(async () => {
    await dispose?.();
  });

  /** The workspace's event schema announcements, in order. */
  const announced = (workspace: ScopedWorkspace): Promise<DefinitionChanged[]> => definitionChangesOf(db, 'event_schema', workspace);
  /** A workflow version (`status`) triggered by `triggers`, live since `activeAt`. */
  async function workflow(workspace: ScopedWorkspace, slug: string, triggers: unknown, status = 'active', activeAt: string | null = '2026-01-01T00:00:00Z'): Promise<void> {
    await db.query(`INSERT INTO management.workflows (workspace_id, slug) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [workspace.id, slug]);
    const [{ next }] = await db.query(`SELECT coalesce(max(version_no), 0) + 1 AS next FROM management.workflow_versions WHERE workspace_id = $1 AND slug = $2`, [workspace.id, slug]);
    await db.query(
      `INSERT INTO management.workflow_versions (workspace_id, slug, version_no, status, document, validation_result, hash, active_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, '{}'::jsonb, 'h', $6)`,
      [workspace.id, slug, next, status, JSON.stringify({ trigger_type: 'event', trigger_events: triggers }), activeAt],
    );
  }
  async function liveSchema(workspace: ScopedWorkspace, slug: string): Promise<void> {
    await schemas.saveDraft(workspace, slug, { name: slug, description: null, json_schema: { type: 'object' } });
    await schemas.commit(workspace, slug, null);
  }

  it('registers an event, updates what it is given and keeps the rest', async () => {
    const workspace = await newWorkspace();
    await expect(events.get(workspace, 'signup')).rejects.toThrow(`event 'signup' not found in workspace '${workspace.slug}'`);
    const registered = await events.save(workspace, 'signup', { description: 'a user signed up' }, false);
    expect(registered).toEqual({ name: 'signup', description: 'a user signed up', schema_slug: null, schema_version_no: null, created_at: expect.any(Date) });
    expect(await events.get(workspace, 'signup')).toEqual(registered);

    await liveSchema(workspace, 'user');
    const linked = await events.save(workspace, 'signup', { payload_schema: { schema: 'user', version_no: null } }, true);
    expect(linked).toEqual({ ...registered, schema_slug: 'user', schema_version_no: null });
    const described = await events.save(workspace, 'signup', { description: 'signed up' }, true);
    expect(described).toEqual({ ...linked, description: 'signed up' });
    const pinned = await events.save(workspace, 'signup', { payload_schema: { schema: 'user', version_no: 1 } }, true);
    expect(pinned).toMatchObject({ description: 'signed up', schema_slug: 'user', schema_version_no: 1 });

    // Registered without a description: empty.
    expect((await events.save(workspace, 'login', {}, false)).description).toBe('');
    // An update must find the event first.
    await expect(events.save(workspace, 'unseen', { description: 'x' }, true)).rejects.toThrow("event 'unseen' not found");
    await expect(events.get(workspace, 'unseen')).rejects.toThrow('not found');
  });

  it('links only a live schema or a committed version, announcing each link and delink with a growing version', async () => {
    const workspace = await newWorkspace();
    await events.save(workspace, 'order', {}, false);
    await expect(events.save(workspace, 'order', { payload_schema: { schema: 'cart', version_no: null } }, true)).rejects.toMatchObject({
      code: 'validation_error',
      fieldErrors: [expect.objectContaining({ path: 'payload_schema.schema' })],
    });
    await schemas.saveDraft(workspace, 'cart', { name: 'cart', description: null, json_schema: {} });
    // A draft is not live.
    await expect(events.save(workspace, 'order', { payload_schema: { schema: 'cart', version_no: null } }, true)).rejects.toMatchObject({ code: 'validation_error' });
    await schemas.commit(workspace, 'cart', null);
    await expect(events.save(workspace, 'order', { payload_schema: { schema: 'cart', version_no: 2 } }, true)).rejects.toMatchObject({
      fieldErrors: [expect.objectContaining({ path: 'payload_schema.version_no', message: 'schema "cart" has no committed version 2' })],
    });
    expect(await announced(workspace)).toEqual([]);

    await events.save(workspace, 'order', { payload_schema: { schema: 'cart', version_no: null } }, true);
    await events.save(workspace, 'order', { description: 'no link change' }, true);
    await events.save(workspace, 'order', { payload_schema: { schema: 'cart', version_no: 1 } }, true);
    const delinked = await events.delinkSchema(workspace, 'order');
    expect(delinked).toMatchObject({ description: 'no link change', schema_slug: null, schema_version_no: null });
    await expect(events.delinkSchema(workspace, 'order')).rejects.toMatchObject({ code: 'validation_error', fieldErrors: [expect.objectContaining({ path: 'payload_schema' })] });
    await expect(events.delinkSchema(workspace, 'nothing')).rejects.toThrow('not found');

    expect((await announced(workspace)).map((change) => [change.id, change.change, change.version, change.document])).toEqual([
      ['order', 'upserted', 1, { event: 'order', payload_schema: { schema: 'cart', version_no: null } }],
      ['order', 'upserted', 2, { event: 'order', payload_schema: { schema: 'cart', version_no: 1 } }],
      ['order', 'upserted', 3, { event: 'order', payload_schema: null }],
    ]);
  });

  it('sees the events live workflows trigger on, dated by the first such workflow going live, and lists them newest first', async () => {
    const workspace = await newWorkspace();
    await workflow(workspace, 'welcome', ['signup', 'invite', 7]);
    await workflow(workspace, 'onboarding', ['signup'], 'active', '2025-12-01T00:00:00Z');
    await workflow(workspace, 'drafted', ['only-in-draft'], 'draft', null);
    await workflow(workspace, 'odd', 'not-a-list');
    await workflow(workspace, 'api', ['api-only']);
    await db.query(`UPDATE management.workflow_versions SET document = '{"trigger_type": "api", "trigger_events": ["api-only"]}' WHERE workspace_id = $1 AND slug = 'api'`, [workspace.id]);
    await events.save(workspace, 'registered', { description: 'by hand' }, false);
    await db.query(`UPDATE management.events SET created_at = '2026-02-01T00:00:00Z' WHERE workspace_id = $1`, [workspace.id]);

    expect(await events.get(workspace, 'signup')).toEqual({ name: 'signup', description: '', schema_slug: null, schema_version_no: null, created_at: new Date('2025-12-01T00:00:00Z') });
    await expect(events.get(workspace, 'only-in-draft')).rejects.toThrow('not found');
    await expect(events.get(workspace, 'api-only')).rejects.toThrow('not found');

    const all = await events.list(workspace, { limit: 10, offset: 0 });
    expect(all.count).toBe(3);
    expect(all.rows.map((row) => row.name)).toEqual(['registered', 'invite', 'signup']);
    const second = await events.list(workspace, { limit: 1, offset: 1 });
    expect(second).toEqual({ count: 3, rows: [expect.objectContaining({ name: 'invite', created_at: new Date('2026-01-01T00:00:00Z') })] });

    // A seen event registered later is one event, with the registration's description and date.
    const registered = await events.save(workspace, 'invite', { description: 'invited' }, true);
    expect(registered.description).toBe('invited');
    expect(registered.created_at).not.toEqual(new Date('2026-01-01T00:00:00Z'));
    const after = await events.list(workspace, { limit: 10, offset: 0 });
    expect(after.count).toBe(3);
    expect(after.rows.find((row) => row.name === 'invite')).toEqual(registered);
  });

  it('answers the live workflows an event triggers, by slug, and 404 for an unseen event', async () => {
    const workspace = await newWorkspace();
    await workflow(workspace, 'zeta', ['signup']);
    await workflow(workspace, 'alpha', ['signup', 'other']);
    await workflow(workspace, 'other-only', ['other']);
    await workflow(workspace, 'drafted', ['signup'], 'draft', null);
    expect(await events.linkedWorkflows(workspace, 'signup')).toEqual([
      { slug: 'alpha', usage: ['Trigger Event'] },
      { slug: 'zeta', usage: ['Trigger Event'] },
    ]);
    expect(await events.linkedWorkflows(workspace, 'other')).toEqual([
      { slug: 'alpha', usage: ['Trigger Event'] },
      { slug: 'other-only', usage: ['Trigger Event'] },
    ]);
    await events.save(workspace, 'lonely', {}, false);
    expect(await events.linkedWorkflows(workspace, 'lonely')).toEqual([]);
    await expect(events.linkedWorkflows(workspace, 'unseen')).rejects.toThrow('not found');
  });

  it("keeps each workspace's events its own", async () => {
    const workspace = await newWorkspace();
    const other = await newWorkspace();
    await workflow(workspace, 'welcome', ['signup']);
    await events.save(workspace, 'order', {}, false);
    await liveSchema(workspace, 'cart');
    expect(await events.list(other, { limit: 10, offset: 0 })).toEqual({ count: 0, rows: [] });
    await expect(events.get(other, 'order')).rejects.toThrow('not found');
    await expect(events.linkedWorkflows(other, 'signup')).rejects.toThrow('not found');
    await expect(events.save(other, 'order', { payload_schema: { schema: 'cart', version_no: null } }, false)).rejects.toMatchObject({ code: 'validation_error' });
  });
});

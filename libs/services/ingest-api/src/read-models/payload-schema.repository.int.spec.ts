import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { databaseTargets } from '@herald/testing';
import { openIngestDatabase } from '../testing/repository-database';
import { PayloadSchemaRepository } from './payload-schema.repository';

describe.each(databaseTargets())('the payload schema repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let schemas: PayloadSchemaRepository;

  beforeAll(async () => {
    const opened = await openIngestDatabase(target);
    db = opened.db;
    dispose = opened.close;
    schemas = new PayloadSchemaRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const requiring = (field: string) => ({ type: 'object', required: [field] });

  it('keeps every committed version as first announced, and the live one of the newest announcement', async () => {
    const workspace = randomUUID();
    expect(await schemas.liveVersionNo(workspace, 'signup')).toBeUndefined();
    expect(await schemas.jsonSchemaOf(workspace, 'signup', 1)).toBeUndefined();
    await schemas.saveLive({ workspaceId: workspace, slug: 'signup', versionNo: 1, jsonSchema: requiring('email') }, 10);
    await schemas.saveLive({ workspaceId: workspace, slug: 'signup', versionNo: 2, jsonSchema: requiring('plan') }, 12);
    // Older announcements: version 3 is kept (a workflow may pin it) but does not go live; version 1 is not rewritten.
    await schemas.saveLive({ workspaceId: workspace, slug: 'signup', versionNo: 3, jsonSchema: true }, 11);
    await schemas.saveLive({ workspaceId: workspace, slug: 'signup', versionNo: 1, jsonSchema: requiring('name') }, 12);
    expect(await schemas.liveVersionNo(workspace, 'signup')).toBe(2);
    expect(await schemas.jsonSchemaOf(workspace, 'signup', 1)).toEqual(requiring('email'));
    expect(await schemas.jsonSchemaOf(workspace, 'signup', 2)).toEqual(requiring('plan'));
    expect(await schemas.jsonSchemaOf(workspace, 'signup', 3)).toBe(true);
    expect(await schemas.liveVersionNo(randomUUID(), 'signup')).toBeUndefined();
  });

  it('removes the live version of a deleted schema unless a newer announcement made it live, keeping its versions', async () => {
    const workspace = randomUUID();
    await schemas.saveLive({ workspaceId: workspace, slug: 'order', versionNo: 1, jsonSchema: requiring('total') }, 5);
    await schemas.removeLive(workspace, 'order', 4);
    await schemas.removeLive(workspace, 'order', 5);
    expect(await schemas.liveVersionNo(workspace, 'order')).toBe(1);
    await schemas.removeLive(workspace, 'order', 6);
    expect(await schemas.liveVersionNo(workspace, 'order')).toBeUndefined();
    expect(await schemas.jsonSchemaOf(workspace, 'order', 1)).toEqual(requiring('total'));
  });

  it('links an event name to a schema, delinks it, and never lets an older announcement win', async () => {
    const workspace = randomUUID();
    expect(await schemas.eventLink(workspace, 'Signed Up')).toBeNull();
    await schemas.saveEventLink({ workspaceId: workspace, event: 'Signed Up', payloadSchema: { schema: 'signup', version_no: 2 }, version: 3 });
    await schemas.saveEventLink({ workspaceId: workspace, event: 'Signed Up', payloadSchema: { schema: 'older' }, version: 2 });
    expect(await schemas.eventLink(workspace, 'Signed Up')).toEqual({ schema: 'signup', version_no: 2 });
    expect(await schemas.eventLink(workspace, 'Logged In')).toBeNull();
    await schemas.saveEventLink({ workspaceId: workspace, event: 'Signed Up', payloadSchema: null, version: 4 });
    expect(await schemas.eventLink(workspace, 'Signed Up')).toBeNull();
    // Delinked is SQL NULL, not a JSON null.
    expect(await db.query(`SELECT payload_schema IS NULL AS delinked FROM ingest.event_schema_links WHERE workspace_id = $1`, [workspace])).toEqual([{ delinked: true }]);
  });
});

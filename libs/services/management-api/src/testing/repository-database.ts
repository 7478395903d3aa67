import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DefinitionChanged, DefinitionKind } from '@herald/contracts';
import { openMigratedSchema } from '@herald/database';
import { DatabaseTarget } from '@herald/testing';
import { MANAGEMENT_OUTBOX } from '../management-events/management-events';
import { MANAGEMENT_ENTITIES } from '../persistence/entities';
import { MANAGEMENT_MIGRATIONS } from '../persistence/migrations';
import { ScopedWorkspace } from '../workspaces/workspace-scope';

/** management's migrated schema on the target, for the repository specs. */
export async function openManagementDatabase(target: DatabaseTarget): Promise<{ db: DataSource; newWorkspace(): Promise<ScopedWorkspace>; close(): Promise<void> }> {
  const { db, close } = await openMigratedSchema(target, { schema: 'management', migrations: MANAGEMENT_MIGRATIONS, entities: MANAGEMENT_ENTITIES });
  const account = randomUUID();
  await db.query(`INSERT INTO management.accounts (id, name) VALUES ($1, 'test')`, [account]);
  return {
    db,
    newWorkspace: async () => {
      const workspace = { id: randomUUID(), slug: `ws-${randomUUID().slice(0, 8)}` };
      await db.query(`INSERT INTO management.workspaces (id, account_id, slug, name) VALUES ($1, $2, $3, $3)`, [workspace.id, account, workspace.slug]);
      return workspace;
    },
    close,
  };
}

/** Every payload the management outbox holds, in the order written (the repository specs' view of what was announced). */
export async function outboxPayloads<T>(db: DataSource): Promise<T[]> {
  const rows: Array<{ value: string }> = await db.query(`SELECT value FROM ${MANAGEMENT_OUTBOX} ORDER BY id`);
  return rows.map((row) => (JSON.parse(row.value) as { payload: T }).payload);
}

/** The workspace's definition.changed announcements of one kind, in order. */
export async function definitionChangesOf(db: DataSource, kind: DefinitionKind, workspace: Pick<ScopedWorkspace, 'id'>): Promise<DefinitionChanged[]> {
  return (await outboxPayloads<DefinitionChanged>(db)).filter((change) => change.kind === kind && change.workspace_id === workspace.id);
}

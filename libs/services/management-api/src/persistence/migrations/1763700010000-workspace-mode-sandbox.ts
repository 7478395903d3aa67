import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A workspace's mode is `sandbox` or `production`, as SuprSend's reference has it; the
 * bootstrap workspace used to be made in mode `test`, which no client knows.
 */
export class WorkspaceModeSandbox1763700010000 implements MigrationInterface {
  name = 'WorkspaceModeSandbox1763700010000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`UPDATE management.workspaces SET mode = 'sandbox' WHERE mode = 'test'`);
    await runner.query(`ALTER TABLE management.workspaces ALTER COLUMN mode SET DEFAULT 'sandbox'`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE management.workspaces ALTER COLUMN mode SET DEFAULT 'test'`);
  }
}

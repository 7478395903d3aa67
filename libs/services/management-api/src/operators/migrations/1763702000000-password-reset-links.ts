import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Password reset links beside invitations: the same single-use, hashed tokens, told apart
 * by `purpose`, so an invitation cannot reset a password nor a reset link accept an
 * invitation. Existing rows are invitations.
 */
export class PasswordResetLinks1763702000000 implements MigrationInterface {
  name = 'PasswordResetLinks1763702000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE management.operator_invitations ADD COLUMN purpose text NOT NULL DEFAULT 'invitation' CHECK (purpose IN ('invitation', 'password_reset'))`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DELETE FROM management.operator_invitations WHERE purpose = 'password_reset'`);
    await runner.query(`ALTER TABLE management.operator_invitations DROP COLUMN purpose`);
  }
}

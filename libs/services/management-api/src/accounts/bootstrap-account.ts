import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  CLOCK,
  Clock,
  HERALD_CONFIG,
  HERALD_LOGGER,
  HeraldConfig,
  HeraldLogger,
  SecretBox,
  generateCredential,
  hashToken,
} from '@herald/runtime';
import { writeOutbox } from '@herald/event-store';
import { maskedKey } from '../api-keys/api-keys.controller';
import { MANAGEMENT_OUTBOX, credentialsChangedMessage } from '../management-events/management-events';
import { SECRETS_KEY } from './secrets-key';

export interface BootstrapOutput {
  readonly write: (text: string) => void;
}
export const BOOTSTRAP_OUTPUT = Symbol('BOOTSTRAP_OUTPUT');

/**
 * First start: one account with a service token, a workspace, an API key and a
 * workspace key/secret pair, taken from HERALD_BOOTSTRAP_* or generated, and
 * printed once (to stdout, not the log, so log shipping never carries them).
 * Replicas starting together serialise on a transaction-scoped advisory lock.
 */
@Injectable()
export class BootstrapAccount implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(HERALD_CONFIG) private readonly config: HeraldConfig,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SECRETS_KEY) private readonly secretsKey: Buffer,
    @Inject(BOOTSTRAP_OUTPUT) private readonly output: BootstrapOutput,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const created = await this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('herald:bootstrap-account'))`);
      const [{ n }] = (await tx.query(`SELECT count(*)::int AS n FROM management.accounts`)) as Array<{ n: number }>;
      if (n > 0) return undefined;

      const wanted = this.config.bootstrap;
      const credentials = {
        serviceToken: wanted.serviceToken ?? generateCredential('hst'),
        workspace: wanted.workspace,
        apiKey: wanted.apiKey ?? generateCredential('hak'),
        workspaceKey: wanted.workspaceKey ?? generateCredential('hwk', 18),
        workspaceSecret: wanted.workspaceSecret ?? generateCredential('hws'),
      };
      const accountId = randomUUID();
      const workspaceId = randomUUID();
      const workspaceKeyId = randomUUID();
      await tx.query(`INSERT INTO management.accounts (id, name) VALUES ($1, 'default')`, [accountId]);
      await tx.query(
        `INSERT INTO management.service_tokens (id, account_id, name, token_hash, token_hint) VALUES ($1, $2, 'bootstrap', $3, $4)`,
        [randomUUID(), accountId, hashToken(credentials.serviceToken), hint(credentials.serviceToken)],
      );
      await tx.query(
        `INSERT INTO management.workspaces (id, account_id, slug, name, mode) VALUES ($1, $2, $3, $3, 'test')`,
        [workspaceId, accountId, credentials.workspace],
      );
      const apiKeyId = randomUUID();
      const apiKeyHash = hashToken(credentials.apiKey);
      await tx.query(
        `INSERT INTO management.api_keys (id, workspace_id, name, key_hash, key_hint) VALUES ($1, $2, 'bootstrap', $3, $4)`,
        [apiKeyId, workspaceId, apiKeyHash, maskedKey(credentials.apiKey)],
      );
      const sealed = new SecretBox(this.secretsKey).seal(credentials.workspaceSecret, `workspace_key:${workspaceKeyId}`);
      await tx.query(
        `INSERT INTO management.workspace_keys (id, workspace_id, name, key, secret_sealed, is_default)
         VALUES ($1, $2, 'default', $3, $4, true)`,
        [workspaceKeyId, workspaceId, credentials.workspaceKey, sealed],
      );
      // The services that authenticate requests learn the credentials from these.
      const now = this.clock.now();
      const workspace = { workspace_id: workspaceId, workspace_slug: credentials.workspace };
      await writeOutbox(tx, MANAGEMENT_OUTBOX, [
        credentialsChangedMessage(
          { kind: 'api_key', change: 'created', api_key_id: apiKeyId, key_hash: apiKeyHash.toString('hex'), ...workspace },
          now,
        ),
        credentialsChangedMessage(
          {
            kind: 'workspace_key',
            change: 'created',
            workspace_key_id: workspaceKeyId,
            key: credentials.workspaceKey,
            secret_sealed: sealed.toString('base64'),
            ...workspace,
          },
          now,
        ),
      ]);
      return credentials;
    });

    if (!created) {
      this.logger.info('account already bootstrapped');
      return;
    }
    this.logger.info('bootstrapped the first account', { workspace: created.workspace });
    this.output.write(
      [
        '',
        '=== Herald first start: keep these, they are shown only once ===',
        `workspace:        ${created.workspace}`,
        `service token:    ${created.serviceToken}    (management API: Authorization: ServiceToken <token>)`,
        `api key:          ${created.apiKey}    (notification API: Authorization: Bearer <key>)`,
        `workspace key:    ${created.workspaceKey}    (SDKs: key and secret)`,
        `workspace secret: ${created.workspaceSecret}`,
        '=================================================================',
        '',
      ].join('\n'),
    );
  }
}

function hint(credential: string): string {
  return `${credential.slice(0, 6)}…${credential.slice(-4)}`;
}

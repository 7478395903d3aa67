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
import { seedDefaultCategories } from '../workspaces/workspace.repository';
import { MANAGEMENT_OUTBOX, credentialsChangedMessage } from '../management-events/management-events';
import { OperatorRepository } from '../operators/operator.repository';
import { hashPassword, passwordProblems } from '../operators/passwords';
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
    private readonly operators: OperatorRepository,
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
        `INSERT INTO management.workspaces (id, account_id, slug, name, mode) VALUES ($1, $2, $3, $3, 'sandbox')`,
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

    await this.seedDefaultCategories();
    await this.bootstrapOperator();
    if (!created) {
      this.logger.info('account already bootstrapped');
      this.warnIgnoredBootstrapVariables();
      return;
    }
    this.logger.info('bootstrapped the first account', { workspace: created.workspace });
    this.printCredentials(created);
  }

  /** Every workspace without categories (the new one, and those from before defaults existed) gets the defaults. */
  private async seedDefaultCategories(): Promise<void> {
    const seeded = await this.db.transaction((tx) => seedDefaultCategories(tx, 'all', this.clock.now()));
    if (seeded > 0) this.logger.info('default notification categories created', { workspaces: seeded, categories: 'system, transactional, promotional' });
  }

  /**
   * HERALD_BOOTSTRAP_OPERATOR_EMAIL and _PASSWORD: the first account's first owner, made
   * while it has no operator (later starts leave the operators alone). Without them, the
   * first owner is invited with the service token (`POST /v1/operator/`).
   */
  private async bootstrapOperator(): Promise<void> {
    const { operatorEmail: email, operatorPassword: password } = this.config.bootstrap;
    if (email === undefined || password === undefined) return;
    const problems = passwordProblems(password, email, 'HERALD_BOOTSTRAP_OPERATOR_PASSWORD');
    if (problems.length > 0) throw new Error(`HERALD_BOOTSTRAP_OPERATOR_PASSWORD ${problems.map((problem) => problem.message).join('; ')}`);
    const [first] = (await this.db.query(`SELECT id FROM management.accounts ORDER BY created_at, id LIMIT 1`)) as Array<{ id: string }>;
    if (first && (await this.operators.createFirstOwner(first.id, email, email.split('@')[0], await hashPassword(password)))) {
      this.logger.info('first console owner created from HERALD_BOOTSTRAP_OPERATOR_EMAIL', { email });
    }
  }

  /** HERALD_BOOTSTRAP_* only apply to the first start: say so, rather than leave a set variable silently ignored. */
  private warnIgnoredBootstrapVariables(): void {
    const wanted = this.config.bootstrap;
    const ignored = [
      wanted.serviceToken !== undefined && 'HERALD_BOOTSTRAP_SERVICE_TOKEN',
      wanted.workspace !== 'staging' && 'HERALD_BOOTSTRAP_WORKSPACE',
      wanted.apiKey !== undefined && 'HERALD_BOOTSTRAP_API_KEY',
      wanted.workspaceKey !== undefined && 'HERALD_BOOTSTRAP_WORKSPACE_KEY',
      wanted.workspaceSecret !== undefined && 'HERALD_BOOTSTRAP_WORKSPACE_SECRET',
    ].filter((name): name is string => typeof name === 'string');
    if (ignored.length === 0) return;
    this.logger.warn('HERALD_BOOTSTRAP_* variables ignored: the account was created on an earlier start; to get a new service token run `npm run herald -- service-token create`', {
      ignored: ignored.join(', '),
    });
  }

  private printCredentials(created: { serviceToken: string; workspace: string; apiKey: string; workspaceKey: string; workspaceSecret: string }): void {
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

export function hint(credential: string): string {
  return `${credential.slice(0, 6)}…${credential.slice(-4)}`;
}

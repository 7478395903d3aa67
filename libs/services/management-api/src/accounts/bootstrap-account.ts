import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HERALD_CONFIG, HERALD_LOGGER, HeraldConfig, HeraldLogger, generateCredential, hashToken } from '@herald/runtime';
import { ApiKeyRepository } from '../api-keys/api-key.repository';
import { maskedKey } from '../api-keys/api-keys.controller';
import { ServiceTokenRepository } from '../auth/service-token.repository';
import { OperatorRepository } from '../operators/operator.repository';
import { hashPassword, passwordProblems } from '../operators/passwords';
import { WorkspaceKeyRepository } from '../workspace-keys/workspace-key.repository';
import { WorkspaceRepository } from '../workspaces/workspace.repository';
import { AccountRepository } from './account.repository';

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
    @Inject(HERALD_CONFIG) private readonly config: HeraldConfig,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(BOOTSTRAP_OUTPUT) private readonly output: BootstrapOutput,
    private readonly accounts: AccountRepository,
    private readonly tokens: ServiceTokenRepository,
    private readonly workspaces: WorkspaceRepository,
    private readonly apiKeys: ApiKeyRepository,
    private readonly workspaceKeys: WorkspaceKeyRepository,
    private readonly operators: OperatorRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // One transaction: the account, its token, workspace and keys, and their announcements.
    const created = await this.accounts.whileNoAccount(async (tx) => {
      const wanted = this.config.bootstrap;
      const credentials = {
        serviceToken: wanted.serviceToken ?? generateCredential('hst'),
        workspace: wanted.workspace,
        apiKey: wanted.apiKey ?? generateCredential('hak'),
        workspaceKey: wanted.workspaceKey ?? generateCredential('hwk', 18),
        workspaceSecret: wanted.workspaceSecret ?? generateCredential('hws'),
      };
      const accountId = await this.accounts.create('default', tx);
      await this.tokens.create({ accountId, name: 'bootstrap', tokenHash: hashToken(credentials.serviceToken), tokenHint: hint(credentials.serviceToken) }, tx);
      const workspace = await this.workspaces.createWithoutCategories(tx, accountId, { slug: credentials.workspace, name: credentials.workspace, mode: 'sandbox' });
      // Each is announced (credentials.changed) for the services that authenticate requests.
      await this.apiKeys.create(workspace, 'bootstrap', hashToken(credentials.apiKey), maskedKey(credentials.apiKey), null, false, tx);
      await this.workspaceKeys.createDefault(tx, workspace, credentials.workspaceKey, credentials.workspaceSecret);
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
    const seeded = await this.workspaces.seedMissingDefaultCategories();
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
    const first = await this.accounts.oldest();
    if (first && (await this.operators.createFirstOwner(first, email, email.split('@')[0], await hashPassword(password)))) {
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

import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CREDENTIALS_CHANGED_TYPE, TOPICS, parseCredentialsChanged } from '@herald/contracts';
import { ConsumerRegistry, HERALD_LOGGER, HeraldLogger, SecretBox, WorkspaceCredentials, WorkspaceKeySecret } from '@herald/runtime';
import { DISPATCH_SECRET_BOX } from './vendor-read-model';

/**
 * Workspace keys and their secrets (sealed in `dispatch.workspace_keys`, opened in memory),
 * as management-api announces them: `@suprsend/js-inbox` proves its user with an HMAC
 * under the key's secret. Its own consumer group, so a new deployment reads every key
 * announced before it; API keys stay ApiKeyReadModel's, which management-api waits for.
 */
@Injectable()
export class WorkspaceKeyReadModel implements OnApplicationBootstrap {
  private readonly credentials: WorkspaceCredentials;

  constructor(
    @InjectDataSource('dispatch') db: DataSource,
    @Inject(DISPATCH_SECRET_BOX) box: SecretBox,
    @Inject(HERALD_LOGGER) logger: HeraldLogger,
    private readonly consumers: ConsumerRegistry,
  ) {
    this.credentials = new WorkspaceCredentials(db, 'dispatch', box, logger);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.consumers.consume([TOPICS.credentialsChanged.name], {
      groupId: 'herald.dispatch.workspace-keys',
      type: CREDENTIALS_CHANGED_TYPE,
      parsePayload: parseCredentialsChanged,
      handle: async (change) => {
        if (change.kind === 'workspace_key') await this.credentials.apply(change);
      },
    });
  }

  /** The secrets of a workspace key, each with its workspace (none when the key is unknown). */
  secretsOf(workspaceKey: string): Promise<readonly WorkspaceKeySecret[]> {
    return this.credentials.secretsOfWorkspaceKey(workspaceKey);
  }
}

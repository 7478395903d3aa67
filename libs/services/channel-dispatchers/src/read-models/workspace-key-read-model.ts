import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CredentialsChanged } from '@herald/contracts';
import { HERALD_LOGGER, HeraldLogger, SecretBox, WorkspaceCredentials, WorkspaceKeySecret } from '@herald/runtime';
import { DISPATCH_SECRET_BOX } from './vendor-read-model';

/**
 * Workspace keys and their secrets (sealed in `dispatch.workspace_keys`, opened in memory),
 * as management-api announces them: `@suprsend/js-inbox` proves its user with an HMAC
 * under the key's secret. Its own consumer group, so a new deployment reads every key
 * announced before it; API keys stay ApiKeyReadModel's, which management-api waits for.
 */
@Injectable()
export class WorkspaceKeyReadModel {
  private readonly credentials: WorkspaceCredentials;

  constructor(
    @InjectDataSource('dispatch') db: DataSource,
    @Inject(DISPATCH_SECRET_BOX) box: SecretBox,
    @Inject(HERALD_LOGGER) logger: HeraldLogger,
  ) {
    this.credentials = new WorkspaceCredentials(db, 'dispatch', box, logger);
  }

  /** A `workspace_key` change of `notify.credentials.changed.v1` (ReadModelConsumers; the API keys are ApiKeyReadModel's). */
  apply(change: CredentialsChanged): Promise<void> {
    return this.credentials.apply(change);
  }

  /** The secrets of a workspace key, each with its workspace (none when the key is unknown). */
  secretsOf(workspaceKey: string): Promise<readonly WorkspaceKeySecret[]> {
    return this.credentials.secretsOfWorkspaceKey(workspaceKey);
  }
}

import { Controller, HttpCode, Inject, Param, Post, Req, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { CLOCK, Clock, generateCredential, hashToken } from '@herald/runtime';
import { ApiKeyExpiry } from '../api-keys/api-key-expiry';
import { ApiKeyRepository } from '../api-keys/api-key.repository';
import { maskedKey } from '../api-keys/api-keys.controller';
import { RequiredRole } from '../auth/roles';
import { ManagementRequest, ServiceTokenGuard, authenticated } from '../auth/service-token.guard';
import { WorkspaceScope } from '../workspaces/workspace-scope';
import { OperatorRepository } from './operator.repository';
import { SESSION_LIFETIME_MS } from './operator-sessions';

export interface ConsoleApiKeyView {
  readonly id: string;
  readonly api_key: string;
  readonly expires_at: Date;
  readonly read_only: boolean;
}

/**
 * `POST /v1/{workspace}/console_api_key/`: the API key a console session reads the
 * notification API (runs, messages) with, for any role. It expires with the session and
 * is deleted when the session ends (sign-out, the operator removed). A viewer's key is
 * read-only: the notification API refuses it anything but GET and HEAD (403), as the
 * management API refuses the viewer's changes.
 */
@Controller('v1/:workspace/console_api_key')
@UseGuards(ServiceTokenGuard)
export class ConsoleApiKeysController {
  constructor(
    private readonly scope: WorkspaceScope,
    private readonly keys: ApiKeyRepository,
    private readonly expiry: ApiKeyExpiry,
    private readonly operators: OperatorRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @RequiredRole('viewer')
  @Post()
  @HttpCode(201)
  async create(@Req() request: ManagementRequest, @Param('workspace') slug: string): Promise<ConsoleApiKeyView> {
    const caller = authenticated(request);
    if (caller.sessionId === undefined) {
      throw new HeraldError('permission_denied', 'console API keys belong to console sessions; with a service token, create an API key (ws_api_key)');
    }
    const workspace = await this.scope.resolve(caller.accountId, slug);
    const live = await this.operators.sessionById(caller.sessionId);
    const expiresAt = live?.expiresAt ?? new Date(this.clock.now().getTime() + SESSION_LIFETIME_MS);
    const apiKey = generateCredential('hak');
    const created = await this.keys.create(workspace, `console session of ${caller.actor.name}`, hashToken(apiKey), maskedKey(apiKey), expiresAt, caller.role === 'viewer');
    await this.operators.addConsoleApiKey(caller.sessionId, { id: created.id, workspaceId: workspace.id, workspaceSlug: workspace.slug });
    this.expiry.expiresAt(expiresAt);
    return { id: created.id, api_key: apiKey, expires_at: expiresAt, read_only: created.readOnly };
  }
}

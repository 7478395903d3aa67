import { Controller, Delete, Get, HttpCode, Inject, Param, ParseUUIDPipe, Post, Query, Req, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { CLOCK, Clock, ValidBody, generateCredential, hashToken } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, offsetPage } from '../http/offset-page';
import { WorkspaceScope } from '../workspaces/workspace-scope';
import { API_KEY_BODIES, ApiKeyCreate } from './request-bodies';
import { ApiKeyExpiry } from './api-key-expiry';
import { ApiKey, ApiKeyRepository } from './api-key.repository';
import { RequiredRole } from '../auth/roles';

export interface ApiKeyView {
  readonly id: string;
  readonly masked_api_key: string;
  readonly is_deleted: boolean;
  readonly name: string;
  readonly allowed_domains: readonly string[];
  readonly created_at: Date;
  readonly created_by: null;
  readonly deleted_at: Date | null;
  readonly deleted_by: null;
  readonly expires_at: Date | null;
  /** Only GET and HEAD on `{base_url}` (Herald). */
  readonly read_only: boolean;
}

/**
 * API keys for `Authorization: Bearer` on `{base_url}`. Stored as SHA-256 hashes:
 * the full key is shown once, in the create response, and never again.
 */
@Controller('v1/:workspace/ws_api_key')
@UseGuards(ServiceTokenGuard)
export class ApiKeysController {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly scope: WorkspaceScope,
    private readonly expiry: ApiKeyExpiry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @RequiredRole('viewer')
  @Get()
  async list(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
  ): Promise<OffsetList<ApiKeyView>> {
    const page = offsetPage(limit, offset);
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const { count, keys } = await this.keys.listLive(workspace, page);
    return { meta: { count, ...page }, results: keys.map(view) };
  }

  @RequiredRole('owner')
  @Post()
  @HttpCode(201)
  async create(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @ValidBody(API_KEY_BODIES.create) body: ApiKeyCreate,
  ): Promise<ApiKeyView & { api_key: string }> {
    const expiresAt = body.expires_at == null ? null : new Date(body.expires_at);
    // Not `<=`: ISO 8601 week and ordinal dates ('2026-W05') pass the schema yet parse to NaN, which compares false either way.
    if (expiresAt !== null && !(expiresAt.getTime() > this.clock.now().getTime())) {
      throw new HeraldError('validation_error', 'expires_at must be a date and time in the future', [
        { path: 'expires_at', message: 'must be a calendar date and time (e.g. 2026-12-31T23:00:00Z) in the future' },
      ]);
    }
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const apiKey = generateCredential('hak');
    const created = await this.keys.create(workspace, body.name, hashToken(apiKey), maskedKey(apiKey), expiresAt, body.read_only ?? false);
    if (expiresAt !== null) this.expiry.expiresAt(expiresAt);
    return { ...view(created), api_key: apiKey };
  }

  @RequiredRole('owner')
  @Delete(':id')
  @HttpCode(204)
  async remove(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('id', new ParseUUIDPipe({ exceptionFactory: () => HeraldError.notFound('API key not found') })) id: string,
  ): Promise<void> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    if (!(await this.keys.remove(workspace, id))) throw HeraldError.notFound('API key not found');
  }
}

/** The first characters and a mask: enough to tell keys apart, useless to an attacker. */
export function maskedKey(apiKey: string): string {
  return `${apiKey.slice(0, 8)}${'*'.repeat(12)}`;
}

function view(key: ApiKey): ApiKeyView {
  return {
    id: key.id,
    masked_api_key: key.keyHint,
    is_deleted: key.deletedAt !== null,
    name: key.name,
    allowed_domains: [],
    created_at: key.createdAt,
    created_by: null,
    deleted_at: key.deletedAt,
    deleted_by: null,
    expires_at: key.expiresAt,
    read_only: key.readOnly,
  };
}

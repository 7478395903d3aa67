import { Body, Controller, Delete, Get, HttpCode, Inject, Param, ParseUUIDPipe, Post, Query, Req, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { CLOCK, Clock, generateCredential, hashToken } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, offsetPage } from '../http/offset-page';
import { WorkspaceScope } from '../workspaces/workspace-scope';
import { CreateApiKeyDto } from './api-key.dto';
import { ApiKeyExpiry } from './api-key-expiry';
import { ApiKeyRow, ApiKeyStore } from './api-key-store';

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
}

/**
 * API keys for `Authorization: Bearer` on `{base_url}`. Stored as SHA-256 hashes:
 * the full key is shown once, in the create response, and never again.
 */
@Controller('v1/:workspace/ws_api_key')
@UseGuards(ServiceTokenGuard)
export class ApiKeysController {
  constructor(
    private readonly store: ApiKeyStore,
    private readonly scope: WorkspaceScope,
    private readonly expiry: ApiKeyExpiry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  async list(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
  ): Promise<OffsetList<ApiKeyView>> {
    const page = offsetPage(limit, offset);
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const { count, rows } = await this.store.list(workspace, page);
    return { meta: { count, ...page }, results: rows.map(view) };
  }

  @Post()
  @HttpCode(201)
  async create(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Body() body: CreateApiKeyDto,
  ): Promise<ApiKeyView & { api_key: string }> {
    const expiresAt = body.expires_at === undefined ? null : new Date(body.expires_at);
    // Not `<=`: ISO 8601 week and ordinal dates ('2026-W05') pass the DTO yet parse to NaN, which compares false either way.
    if (expiresAt !== null && !(expiresAt.getTime() > this.clock.now().getTime())) {
      throw new HeraldError('validation_error', 'expires_at must be a date and time in the future', [
        { path: 'expires_at', message: 'must be a calendar date and time (e.g. 2026-12-31T23:00:00Z) in the future' },
      ]);
    }
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const apiKey = generateCredential('hak');
    const row = await this.store.create(workspace, body.name, hashToken(apiKey), maskedKey(apiKey), expiresAt);
    if (expiresAt !== null) this.expiry.expiresAt(expiresAt);
    return { ...view(row), api_key: apiKey };
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('id', new ParseUUIDPipe({ exceptionFactory: () => HeraldError.notFound('API key not found') })) id: string,
  ): Promise<void> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    if (!(await this.store.remove(workspace, id))) throw HeraldError.notFound('API key not found');
  }
}

/** The first characters and a mask: enough to tell keys apart, useless to an attacker. */
export function maskedKey(apiKey: string): string {
  return `${apiKey.slice(0, 8)}${'*'.repeat(12)}`;
}

function view(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    masked_api_key: row.key_hint,
    is_deleted: row.deleted_at !== null,
    name: row.name,
    allowed_domains: [],
    created_at: row.created_at,
    created_by: null,
    deleted_at: row.deleted_at,
    deleted_by: null,
    expires_at: row.expires_at,
  };
}

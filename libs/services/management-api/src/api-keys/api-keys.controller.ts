import { Body, Controller, Delete, Get, HttpCode, Inject, Param, ParseUUIDPipe, Post, Query, Req, UseGuards } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock, generateCredential, hashToken } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { MANAGEMENT_OUTBOX, credentialsChangedMessage } from '../management-events/management-events';
import { OffsetList, offsetPage } from '../http/offset-page';
import { returningRows } from '@herald/database';
import { WorkspaceScope } from '../workspaces/workspace-scope';
import { CreateApiKeyDto } from './api-key.dto';

interface ApiKeyRow {
  id: string;
  name: string;
  key_hint: string;
  key_hash: Buffer;
  created_at: Date;
  deleted_at: Date | null;
}

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
}

/**
 * API keys for `Authorization: Bearer` on `{base_url}`. Stored as SHA-256 hashes:
 * the full key is shown once, in the create response, and never again.
 */
@Controller('v1/:workspace/ws_api_key')
@UseGuards(ServiceTokenGuard)
export class ApiKeysController {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    private readonly scope: WorkspaceScope,
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
    const [{ count }] = (await this.db.query(
      `SELECT count(*)::int AS count FROM management.api_keys WHERE workspace_id = $1 AND deleted_at IS NULL`,
      [workspace.id],
    )) as Array<{ count: number }>;
    const rows = (await this.db.query(
      `SELECT id, name, key_hint, key_hash, created_at, deleted_at FROM management.api_keys
        WHERE workspace_id = $1 AND deleted_at IS NULL ORDER BY created_at, id LIMIT $2 OFFSET $3`,
      [workspace.id, page.limit, page.offset],
    )) as ApiKeyRow[];
    return { meta: { count, ...page }, results: rows.map(view) };
  }

  @Post()
  @HttpCode(201)
  async create(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Body() body: CreateApiKeyDto,
  ): Promise<ApiKeyView & { api_key: string }> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const apiKey = generateCredential('hak');
    const keyHash = hashToken(apiKey);
    const row = await this.db.transaction(async (tx) => {
      const [created] = (await tx.query(
        `INSERT INTO management.api_keys (id, workspace_id, name, key_hash, key_hint)
         VALUES ($1, $2, $3, $4, $5) RETURNING id, name, key_hint, key_hash, created_at, deleted_at`,
        [randomUUID(), workspace.id, body.name, keyHash, maskedKey(apiKey)],
      )) as ApiKeyRow[];
      await writeOutbox(tx, MANAGEMENT_OUTBOX, [
        credentialsChangedMessage(
          {
            kind: 'api_key',
            change: 'created',
            api_key_id: created.id,
            workspace_id: workspace.id,
            workspace_slug: workspace.slug,
            key_hash: keyHash.toString('hex'),
          },
          this.clock.now(),
        ),
      ]);
      return created;
    });
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
    await this.db.transaction(async (tx) => {
      const [row] = returningRows<ApiKeyRow>(
        await tx.query(
          `UPDATE management.api_keys SET deleted_at = now() WHERE id = $1 AND workspace_id = $2 AND deleted_at IS NULL
           RETURNING id, name, key_hint, key_hash, created_at, deleted_at`,
          [id, workspace.id],
        ),
      );
      if (!row) throw HeraldError.notFound('API key not found');
      await writeOutbox(tx, MANAGEMENT_OUTBOX, [
        credentialsChangedMessage(
          {
            kind: 'api_key',
            change: 'deleted',
            api_key_id: row.id,
            workspace_id: workspace.id,
            workspace_slug: workspace.slug,
            key_hash: row.key_hash.toString('hex'),
          },
          this.clock.now(),
        ),
      ]);
    });
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
  };
}

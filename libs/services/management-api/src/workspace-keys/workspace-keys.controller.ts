import { Body, Controller, Delete, Get, HttpCode, Inject, Param, ParseUUIDPipe, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock, SecretBox, generateCredential } from '@herald/runtime';
import { SECRETS_KEY } from '../accounts/secrets-key';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { MANAGEMENT_OUTBOX, credentialsChangedMessage } from '../management-events/management-events';
import { OffsetList, offsetPage } from '../http/offset-page';
import { returningRows } from '@herald/database';
import { ScopedWorkspace, WorkspaceScope } from '../workspaces/workspace-scope';
import { CreateWorkspaceKeyDto } from './workspace-key.dto';

interface WorkspaceKeyRow {
  id: string;
  name: string;
  key: string;
  secret_sealed: Buffer;
  is_default: boolean;
  is_active: boolean;
  is_deleted: boolean;
  allowed_domains: string[];
  created_at: Date;
  created_by: unknown;
  rotated_at: Date | null;
  rotated_by: unknown;
  deleted_at: Date | null;
  deleted_by: unknown;
}

export interface WorkspaceKeyView extends Omit<WorkspaceKeyRow, 'secret_sealed'> {
  readonly secret: string;
}

const COLUMNS = `id, name, key, secret_sealed, is_default, is_active, is_deleted, allowed_domains, created_at, created_by,
                 rotated_at, rotated_by, deleted_at, deleted_by`;

/**
 * Interface 2.9 / 4.5: workspace key/secret pairs, which SDKs sign requests with.
 * The interface returns the secret in full on every response, so it is stored
 * sealed (not hashed) and opened only to answer.
 */
@Controller('v1/:workspace/ws_key')
@UseGuards(ServiceTokenGuard)
export class WorkspaceKeysController {
  private readonly box: SecretBox;

  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    private readonly scope: WorkspaceScope,
    @Inject(SECRETS_KEY) secretsKey: Buffer,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.box = new SecretBox(secretsKey);
  }

  @Get()
  async list(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
  ): Promise<OffsetList<WorkspaceKeyView>> {
    const page = offsetPage(limit, offset);
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const [{ count }] = (await this.db.query(
      `SELECT count(*)::int AS count FROM management.workspace_keys WHERE workspace_id = $1 AND NOT is_deleted`,
      [workspace.id],
    )) as Array<{ count: number }>;
    const rows = (await this.db.query(
      `SELECT ${COLUMNS} FROM management.workspace_keys WHERE workspace_id = $1 AND NOT is_deleted
        ORDER BY created_at, id LIMIT $2 OFFSET $3`,
      [workspace.id, page.limit, page.offset],
    )) as WorkspaceKeyRow[];
    return { meta: { count, ...page }, results: rows.map((row) => this.view(row)) };
  }

  @Post()
  @HttpCode(201)
  async create(@Req() request: ManagementRequest, @Param('workspace') slug: string, @Body() body: CreateWorkspaceKeyDto): Promise<WorkspaceKeyView> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const id = randomUUID();
    const key = generateCredential('hwk', 18);
    const secret = generateCredential('hws');
    const sealed = this.box.seal(secret, `workspace_key:${id}`);
    const row = await this.db.transaction(async (tx) => {
      const [created] = (await tx.query(
        `INSERT INTO management.workspace_keys (id, workspace_id, name, key, secret_sealed, allowed_domains)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb) RETURNING ${COLUMNS}`,
        [id, workspace.id, body.name, key, sealed, JSON.stringify(body.allowed_domains ?? [])],
      )) as WorkspaceKeyRow[];
      await this.announce(tx, workspace, created, 'created');
      return created;
    });
    return this.view(row);
  }

  /** A new secret for the same key; SDKs signing with the old secret are refused from now on. */
  @Patch(':id/rotate')
  async rotate(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('id', new ParseUUIDPipe({ exceptionFactory: () => HeraldError.notFound('workspace key not found') })) id: string,
  ): Promise<WorkspaceKeyView> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const sealed = this.box.seal(generateCredential('hws'), `workspace_key:${id}`);
    const row = await this.db.transaction(async (tx) => {
      const [updated] = returningRows<WorkspaceKeyRow>(
        await tx.query(
          `UPDATE management.workspace_keys SET secret_sealed = $3, rotated_at = now()
            WHERE id = $1 AND workspace_id = $2 AND NOT is_deleted RETURNING ${COLUMNS}`,
          [id, workspace.id, sealed],
        ),
      );
      if (!updated) throw HeraldError.notFound('workspace key not found');
      await this.announce(tx, workspace, updated, 'rotated');
      return updated;
    });
    return this.view(row);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('id', new ParseUUIDPipe({ exceptionFactory: () => HeraldError.notFound('workspace key not found') })) id: string,
  ): Promise<void> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    await this.db.transaction(async (tx) => {
      const [row] = returningRows<WorkspaceKeyRow>(
        await tx.query(
          `UPDATE management.workspace_keys SET is_deleted = true, is_active = false, deleted_at = now()
            WHERE id = $1 AND workspace_id = $2 AND NOT is_deleted RETURNING ${COLUMNS}`,
          [id, workspace.id],
        ),
      );
      if (!row) throw HeraldError.notFound('workspace key not found');
      await this.announce(tx, workspace, row, 'deleted');
    });
  }

  private announce(tx: EntityManager, workspace: ScopedWorkspace, row: WorkspaceKeyRow, change: 'created' | 'rotated' | 'deleted'): Promise<void> {
    return writeOutbox(tx, MANAGEMENT_OUTBOX, [
      credentialsChangedMessage(
        {
          kind: 'workspace_key',
          change,
          workspace_key_id: row.id,
          workspace_id: workspace.id,
          workspace_slug: workspace.slug,
          key: row.key,
          secret_sealed: change === 'deleted' ? undefined : row.secret_sealed.toString('base64'),
        },
        this.clock.now(),
      ),
    ]);
  }

  private view({ secret_sealed, ...row }: WorkspaceKeyRow): WorkspaceKeyView {
    return { ...row, secret: this.box.open(secret_sealed, `workspace_key:${row.id}`) };
  }
}

import { Controller, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { ValidBody } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { COMMIT_BODY, CommitBody, commitMessageOf } from '../http/commit-message';
import { OffsetList, offsetPage } from '../http/offset-page';
import { booleanOf, modeOf } from '../http/query-params';
import { ScopedWorkspace, WorkspaceScope } from '../workspaces/workspace-scope';
import { SchemaRow, SchemaRepository } from './schema.repository';
import { SCHEMA_BODIES, SchemaBody } from './request-bodies';
import { RequiredRole } from '../auth/roles';

const SLUG = /^[a-z0-9-_]{1,255}$/;

export interface SchemaView {
  readonly slug: string;
  readonly name: string;
  readonly description: string | null;
  readonly status: 'draft' | 'live';
  readonly version_no: number;
  readonly hash: string;
  readonly json_schema: Record<string, unknown>;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly committed_at: Date | null;
  readonly commit_message: string | null;
}

/**
 * `/v1/{workspace}/schema/...` as in the reference: JSON Schemas of trigger data, a
 * draft (upsert, `commit=true` to make it live at once) and committed versions. A
 * workflow links one with `payload_schema`; ingest then checks its triggers' data.
 */
@Controller('v1/:workspace/schema')
@UseGuards(ServiceTokenGuard)
export class SchemasController {
  constructor(
    private readonly scope: WorkspaceScope,
    private readonly schemas: SchemaRepository,
  ) {}

  @RequiredRole('viewer')
  @Get()
  async list(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Query('mode') mode?: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
  ): Promise<OffsetList<SchemaView>> {
    const page = offsetPage(limit, offset);
    const selected = modeOf(mode);
    const { count, rows } = await this.schemas.list(await this.workspace(request, workspaceSlug), selected, page);
    return { meta: { count, ...page }, results: rows.map(schemaView) };
  }

  @RequiredRole('viewer')
  @Get(':slug')
  async get(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @Param('slug') slug: string, @Query('mode') mode?: string): Promise<SchemaView> {
    const selected = modeOf(mode);
    return schemaView(await this.schemas.get(await this.workspace(request, workspaceSlug), slugOf(slug), selected));
  }

  /** Creates the schema or replaces its draft; `commit=true` also makes it live. */
  @RequiredRole('editor')
  @Post(':slug')
  @HttpCode(200)
  async upsert(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('slug') slug: string,
    @ValidBody(SCHEMA_BODIES.upsert) body: SchemaBody,
    @Query('commit') commit?: string,
    @Query('commit_message') commitMessage?: string,
  ): Promise<SchemaView> {
    const shouldCommit = booleanOf('commit', commit);
    const workspace = await this.workspace(request, workspaceSlug);
    const saved = await this.schemas.saveDraft(workspace, slugOf(slug), { name: body.name, description: body.description ?? null, json_schema: body.json_schema });
    if (!shouldCommit) return schemaView(saved);
    return schemaView(await this.schemas.commit(workspace, saved.slug, commitMessage?.trim() || null));
  }

  @RequiredRole('editor')
  @Patch(':slug/commit')
  async commit(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('slug') slug: string,
    @ValidBody(COMMIT_BODY) body: CommitBody,
    @Query('commit_message') commitMessage?: string,
  ): Promise<SchemaView> {
    const message = commitMessageOf(commitMessage, body) ?? null;
    return schemaView(await this.schemas.commit(await this.workspace(request, workspaceSlug), slugOf(slug), message));
  }

  private workspace(request: ManagementRequest, slug: string): Promise<ScopedWorkspace> {
    return this.scope.resolve(accountOf(request), slug);
  }
}

function slugOf(slug: string): string {
  if (!SLUG.test(slug)) throw HeraldError.validation([{ path: 'schema_slug', message: 'must match ^[a-z0-9-_]+$, 1 to 255 characters' }]);
  return slug;
}

function schemaView(row: SchemaRow): SchemaView {
  return {
    slug: row.slug,
    name: row.name,
    description: row.description,
    status: row.status === 'draft' ? 'draft' : 'live',
    version_no: row.version_no,
    hash: row.hash,
    json_schema: row.json_schema,
    created_at: row.created_at,
    updated_at: row.updated_at,
    committed_at: row.committed_at,
    commit_message: row.commit_message,
  };
}

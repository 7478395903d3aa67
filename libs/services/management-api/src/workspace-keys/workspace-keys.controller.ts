import { Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { ValidBody } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf, maySeeSecrets } from '../auth/service-token.guard';
import { OffsetList, offsetPage } from '../http/offset-page';
import { WorkspaceScope } from '../workspaces/workspace-scope';
import { WORKSPACE_KEY_BODIES, WorkspaceKeyCreate } from './request-bodies';
import { OpenedWorkspaceKey, WorkspaceKeyRepository } from './workspace-key.repository';
import { RequiredRole } from '../auth/roles';

const keyNotFound = (): HeraldError => HeraldError.notFound('workspace key not found');

/** A key as the interface answers it (2.9): the secret in full, for an owner or editor. */
export interface WorkspaceKeyView {
  readonly id: string;
  readonly name: string;
  readonly key: string;
  readonly secret: string;
  readonly is_default: boolean;
  readonly is_active: boolean;
  readonly is_deleted: boolean;
  readonly allowed_domains: readonly string[];
  readonly created_at: Date;
  readonly created_by: unknown;
  readonly rotated_at: Date | null;
  readonly rotated_by: unknown;
  readonly deleted_at: Date | null;
  readonly deleted_by: unknown;
}

/** Interface 2.9 / 4.5: workspace key/secret pairs, which SDKs sign requests with. */
@Controller('v1/:workspace/ws_key')
@UseGuards(ServiceTokenGuard)
export class WorkspaceKeysController {
  constructor(
    private readonly keys: WorkspaceKeyRepository,
    private readonly scope: WorkspaceScope,
  ) {}

  @RequiredRole('viewer')
  @Get()
  async list(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
  ): Promise<OffsetList<WorkspaceKeyView>> {
    const page = offsetPage(limit, offset);
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const { count, keys } = await this.keys.list(workspace, page);
    const views = keys.map(workspaceKeyView);
    // The interface lists secrets in full; a viewer sees their first characters only.
    return { meta: { count, ...page }, results: maySeeSecrets(request) ? views : views.map(withMaskedSecret) };
  }

  @RequiredRole('owner')
  @Post()
  @HttpCode(201)
  async create(@Req() request: ManagementRequest, @Param('workspace') slug: string, @ValidBody(WORKSPACE_KEY_BODIES.create) body: WorkspaceKeyCreate): Promise<WorkspaceKeyView> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    return workspaceKeyView(await this.keys.create(workspace, body.name, body.allowed_domains ?? []));
  }

  /** A new secret for the same key; SDKs signing with the old secret are refused from now on. */
  @RequiredRole('owner')
  @Patch(':id/rotate')
  async rotate(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('id', new ParseUUIDPipe({ exceptionFactory: keyNotFound })) id: string,
  ): Promise<WorkspaceKeyView> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const rotated = await this.keys.rotate(workspace, id);
    if (!rotated) throw keyNotFound();
    return workspaceKeyView(rotated);
  }

  @RequiredRole('owner')
  @Delete(':id')
  @HttpCode(204)
  async remove(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('id', new ParseUUIDPipe({ exceptionFactory: keyNotFound })) id: string,
  ): Promise<void> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    if (!(await this.keys.remove(workspace, id))) throw keyNotFound();
  }
}

function workspaceKeyView(key: OpenedWorkspaceKey): WorkspaceKeyView {
  return {
    id: key.id,
    name: key.name,
    key: key.key,
    secret: key.secret,
    is_default: key.isDefault,
    is_active: key.isActive,
    is_deleted: key.isDeleted,
    allowed_domains: key.allowedDomains,
    created_at: key.createdAt,
    created_by: key.createdBy,
    rotated_at: key.rotatedAt,
    rotated_by: key.rotatedBy,
    deleted_at: key.deletedAt,
    deleted_by: key.deletedBy,
  };
}

/** A viewer's view: the secret's first characters and a mask, enough to tell secrets apart. */
function withMaskedSecret(key: WorkspaceKeyView): WorkspaceKeyView {
  return { ...key, secret: `${key.secret.slice(0, 8)}${'*'.repeat(12)}` };
}

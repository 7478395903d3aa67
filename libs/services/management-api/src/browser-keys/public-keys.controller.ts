import { Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { ValidBody } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, offsetPage } from '../http/offset-page';
import { WorkspaceScope } from '../workspaces/workspace-scope';
import { PUBLIC_KEY_BODIES, PublicKeyCreate, PublicKeyPatch } from './request-bodies';
import { PublicKey, PublicKeyRepository } from './public-key.repository';
import { RequiredRole } from '../auth/roles';

export interface PublicKeyView {
  readonly id: string;
  readonly api_key: string;
  readonly name: string;
  readonly allowed_domains: readonly string[] | null;
  readonly is_secure_mode_enabled: boolean;
  readonly is_deleted: boolean;
  readonly is_default: boolean;
  readonly created_at: Date;
  readonly created_by: null;
  readonly rotated_at: Date | null;
  readonly rotated_by: null;
  readonly updated_at: Date;
  readonly updated_by: null;
}

/**
 * `ws_public_key`: the key a web page uses, with a user token, to call the browser
 * inbox. Not a secret; `allowed_domains` are the browser origins allowed to use it.
 */
@Controller('v1/:workspace/ws_public_key')
@UseGuards(ServiceTokenGuard)
export class PublicKeysController {
  constructor(
    private readonly scope: WorkspaceScope,
    private readonly keys: PublicKeyRepository,
  ) {}

  @RequiredRole('viewer')
  @Get()
  async list(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
  ): Promise<OffsetList<PublicKeyView>> {
    const page = offsetPage(limit, offset);
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const { count, keys } = await this.keys.list(workspace, page);
    return { meta: { count, ...page }, results: keys.map(viewOf) };
  }

  @RequiredRole('owner')
  @Post()
  @HttpCode(201)
  async create(@Req() request: ManagementRequest, @Param('workspace') slug: string, @ValidBody(PUBLIC_KEY_BODIES.create) body: PublicKeyCreate): Promise<PublicKeyView> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    return viewOf(await this.keys.create(workspace, body.name, body.description ?? null, body.allowed_domains));
  }

  @RequiredRole('owner')
  @Patch(':id')
  @HttpCode(202)
  async update(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('id') id: string,
    @ValidBody(PUBLIC_KEY_BODIES.patch) body: PublicKeyPatch,
  ): Promise<PublicKeyView> {
    // At least one field: the reference's PATCH sets secure mode, Herald's also the origins.
    if (body.is_secure_mode_enabled === undefined && body.allowed_domains === undefined) {
      throw HeraldError.validation([{ path: 'is_secure_mode_enabled', message: 'is required when allowed_domains is not given' }]);
    }
    const workspace = await this.scope.resolve(accountOf(request), slug);
    return viewOf(await this.keys.update(workspace, id, body.allowed_domains));
  }

  @RequiredRole('owner')
  @Patch(':id/rotate')
  @HttpCode(202)
  async rotate(@Req() request: ManagementRequest, @Param('workspace') slug: string, @Param('id') id: string): Promise<PublicKeyView> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    return viewOf(await this.keys.rotate(workspace, id));
  }

  @RequiredRole('owner')
  @Delete(':id')
  @HttpCode(204)
  async remove(@Req() request: ManagementRequest, @Param('workspace') slug: string, @Param('id') id: string): Promise<void> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    await this.keys.remove(workspace, id);
  }
}

function viewOf(key: PublicKey): PublicKeyView {
  return {
    id: key.id,
    api_key: key.apiKey,
    name: key.name,
    allowed_domains: key.allowedDomains,
    is_secure_mode_enabled: key.isSecureModeEnabled,
    is_deleted: key.deletedAt !== null,
    is_default: false,
    created_at: key.createdAt,
    created_by: null,
    rotated_at: key.rotatedAt,
    rotated_by: null,
    updated_at: key.updatedAt,
    updated_by: null,
  };
}

import { Controller, Delete, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, offsetPage } from '../http/offset-page';
import { WorkspaceScope } from '../workspaces/workspace-scope';
import { PrivateKeyMaterial, SigningKeyRow, SigningKeyStore } from './signing-key-store';
import { RequiredRole } from '../auth/roles';

export interface SigningKeyView {
  readonly id: string;
  readonly uid: string;
  readonly status: 'active' | 'rolled';
  readonly allowed_domains: null;
  readonly expiry_at: null;
  readonly created_at: Date;
  readonly created_by: null;
  readonly rolled_at: Date | null;
  readonly rolled_by: null;
  readonly deleted_at: Date | null;
  readonly deleted_by: null;
}

/**
 * `ws_signing_key`: ES256 keys the customer's backend signs its users' inbox tokens
 * with. The private key is in the create and roll responses only.
 */
@Controller('v1/:workspace/ws_signing_key')
@UseGuards(ServiceTokenGuard)
export class SigningKeysController {
  constructor(
    private readonly scope: WorkspaceScope,
    private readonly keys: SigningKeyStore,
  ) {}

  @RequiredRole('viewer')
  @Get()
  async list(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
  ): Promise<OffsetList<SigningKeyView>> {
    const page = offsetPage(limit, offset);
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const { count, rows } = await this.keys.list(workspace, page);
    return { meta: { count, ...page }, results: rows.map(viewOf) };
  }

  @RequiredRole('owner')
  @Post()
  @HttpCode(201)
  async create(@Req() request: ManagementRequest, @Param('workspace') slug: string): Promise<SigningKeyView & PrivateKeyMaterial> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    return withPrivateKey(await this.keys.create(workspace));
  }

  @RequiredRole('owner')
  @Post(':uid/roll')
  @HttpCode(201)
  async roll(@Req() request: ManagementRequest, @Param('workspace') slug: string, @Param('uid') uid: string): Promise<SigningKeyView & PrivateKeyMaterial> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    return withPrivateKey(await this.keys.roll(workspace, uid));
  }

  @RequiredRole('owner')
  @Delete(':uid')
  @HttpCode(204)
  async remove(@Req() request: ManagementRequest, @Param('workspace') slug: string, @Param('uid') uid: string): Promise<void> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    await this.keys.remove(workspace, uid);
  }
}

function withPrivateKey(created: SigningKeyRow & PrivateKeyMaterial): SigningKeyView & PrivateKeyMaterial {
  return { ...viewOf(created), private_key_pem: created.private_key_pem, private_key_base64: created.private_key_base64 };
}

function viewOf(row: SigningKeyRow): SigningKeyView {
  return {
    id: row.id,
    uid: row.uid,
    status: row.status,
    allowed_domains: null,
    expiry_at: null,
    created_at: row.created_at,
    created_by: null,
    rolled_at: row.rolled_at,
    rolled_by: null,
    deleted_at: row.deleted_at,
    deleted_by: null,
  };
}

import { Controller, Delete, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { generateKeyPairSync } from 'node:crypto';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, offsetPage } from '../http/offset-page';
import { WorkspaceScope } from '../workspaces/workspace-scope';
import { SigningKey, SigningKeyRepository } from './signing-key.repository';
import { RequiredRole } from '../auth/roles';

/** The private half, in the reference's two encodings; it exists only in the create or roll response. */
export interface PrivateKeyMaterial {
  readonly private_key_pem: string;
  readonly private_key_base64: string;
}

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
    private readonly keys: SigningKeyRepository,
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
    const { count, keys } = await this.keys.list(workspace, page);
    return { meta: { count, ...page }, results: keys.map(viewOf) };
  }

  @RequiredRole('owner')
  @Post()
  @HttpCode(201)
  async create(@Req() request: ManagementRequest, @Param('workspace') slug: string): Promise<SigningKeyView & PrivateKeyMaterial> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const pair = newKeyPair();
    return { ...viewOf(await this.keys.create(workspace, pair.publicKeyPem)), ...pair.privateKey };
  }

  @RequiredRole('owner')
  @Post(':uid/roll')
  @HttpCode(201)
  async roll(@Req() request: ManagementRequest, @Param('workspace') slug: string, @Param('uid') uid: string): Promise<SigningKeyView & PrivateKeyMaterial> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const pair = newKeyPair();
    return { ...viewOf(await this.keys.roll(workspace, uid, pair.publicKeyPem)), ...pair.privateKey };
  }

  @RequiredRole('owner')
  @Delete(':uid')
  @HttpCode(204)
  async remove(@Req() request: ManagementRequest, @Param('workspace') slug: string, @Param('uid') uid: string): Promise<void> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    await this.keys.remove(workspace, uid);
  }
}

/** A new ES256 (P-256) key pair: the public half to store, the private half to hand over once. */
function newKeyPair(): { publicKeyPem: string; privateKey: PrivateKeyMaterial } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey: { private_key_pem: privateKeyPem, private_key_base64: Buffer.from(privateKeyPem).toString('base64') },
  };
}

function viewOf(key: SigningKey): SigningKeyView {
  return {
    id: key.id,
    uid: key.uid,
    status: key.status,
    allowed_domains: null,
    expiry_at: null,
    created_at: key.createdAt,
    created_by: null,
    rolled_at: key.rolledAt,
    rolled_by: null,
    deleted_at: key.deletedAt,
    deleted_by: null,
  };
}

import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { ManagementRequest, ServiceTokenGuard, accountOf, maySeeSecrets } from '../auth/service-token.guard';
import { OffsetList, offsetPage } from '../http/offset-page';
import { WorkspaceScope } from '../workspaces/workspace-scope';
import { CreateWorkspaceKeyDto } from './workspace-key.dto';
import { WorkspaceKeyStore, WorkspaceKeyView } from './workspace-key-store';
import { RequiredRole } from '../auth/roles';

const keyNotFound = (): HeraldError => HeraldError.notFound('workspace key not found');

/** Interface 2.9 / 4.5: workspace key/secret pairs, which SDKs sign requests with. */
@Controller('v1/:workspace/ws_key')
@UseGuards(ServiceTokenGuard)
export class WorkspaceKeysController {
  constructor(
    private readonly store: WorkspaceKeyStore,
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
    const { count, keys } = await this.store.list(workspace, page);
    // The interface lists secrets in full; a viewer sees their first characters only.
    return { meta: { count, ...page }, results: maySeeSecrets(request) ? keys : keys.map(withMaskedSecret) };
  }

  @RequiredRole('owner')
  @Post()
  @HttpCode(201)
  async create(@Req() request: ManagementRequest, @Param('workspace') slug: string, @Body() body: CreateWorkspaceKeyDto): Promise<WorkspaceKeyView> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    return this.store.create(workspace, body.name, body.allowed_domains ?? []);
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
    const rotated = await this.store.rotate(workspace, id);
    if (!rotated) throw keyNotFound();
    return rotated;
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
    if (!(await this.store.remove(workspace, id))) throw keyNotFound();
  }
}

/** A viewer's view: the secret's first characters and a mask, enough to tell secrets apart. */
function withMaskedSecret(key: WorkspaceKeyView): WorkspaceKeyView {
  return { ...key, secret: `${key.secret.slice(0, 8)}${'*'.repeat(12)}` };
}

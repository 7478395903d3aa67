import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { FieldError, HeraldError } from '@herald/contracts';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, OffsetPage, offsetPage } from '../http/offset-page';
import { WorkspaceScope } from '../workspaces/workspace-scope';
import { Credentials } from './credential-fields';
import { CHANNELS, isChannel, vendorSpecOf } from './vendor-catalogue';
import { VendorCredentials } from './vendor-credentials';
import { VendorRow, VendorStore, sealedOf } from './vendor-store';

export interface VendorView {
  readonly id: string;
  readonly channel: string;
  readonly vendor: string;
  readonly is_enabled: boolean;
  readonly priority: number;
  /** The API base URL the dispatchers call: the override, else the vendor's default. */
  readonly base_url: string | null;
  readonly settings: Record<string, unknown>;
  /** Each credential masked; never a value in full. */
  readonly credentials: Record<string, string>;
  readonly has_credentials: boolean;
  readonly version: number;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/**
 * decisions.md, Management API: the vendors a workspace delivers each channel through,
 * with sealed credentials and a fallback priority. PUT upserts and is partial on an
 * update (an absent field keeps its value, so settings change without resending secrets).
 */
@Controller('v1/:workspace/vendor')
@UseGuards(ServiceTokenGuard)
export class VendorsController {
  constructor(
    private readonly store: VendorStore,
    private readonly scope: WorkspaceScope,
    private readonly credentials: VendorCredentials,
  ) {}

  /** Ordered by channel, then priority (the fallback order), then vendor. */
  @Get()
  async list(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Query('channel') channel?: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
  ): Promise<OffsetList<VendorView>> {
    const { page, onlyChannel } = listQuery(channel, limit, offset);
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const { count, rows } = await this.store.list(workspace, onlyChannel, page);
    return { meta: { count, ...page }, results: rows.map((row) => this.view(row)) };
  }

  @Get(':channel/:vendor')
  async get(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('channel') channel: string,
    @Param('vendor') vendor: string,
  ): Promise<VendorView> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    return this.view(await this.store.get(workspace, vendorSpecOf(channel, vendor)));
  }

  /** 201 when the vendor was not configured (or had been deleted), 200 when it was updated. */
  @Put(':channel/:vendor')
  async put(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('channel') channel: string,
    @Param('vendor') vendor: string,
    // Not a DTO type: the body is validated in the store, with the path's vendor (vendor.dto.ts).
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<VendorView> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const { row, created } = await this.store.put(workspace, vendorSpecOf(channel, vendor), body);
    void reply.status(created ? 201 : 200);
    return this.view(row);
  }

  @Delete(':channel/:vendor')
  @HttpCode(204)
  async remove(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('channel') channel: string,
    @Param('vendor') vendor: string,
  ): Promise<void> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    await this.store.remove(workspace, vendorSpecOf(channel, vendor));
  }

  private view(row: VendorRow): VendorView {
    const spec = vendorSpecOf(row.channel, row.vendor);
    const credentials: Credentials = this.credentials.open(row.id, sealedOf(row));
    return {
      id: row.id,
      channel: row.channel,
      vendor: row.vendor,
      is_enabled: row.is_enabled,
      priority: row.priority,
      base_url: row.base_url ?? spec.defaultBaseUrl(credentials),
      settings: row.settings,
      credentials: this.credentials.mask(spec, credentials),
      has_credentials: Object.keys(credentials).length > 0,
      version: row.version,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }
}

function listQuery(channel: unknown, limit: string | undefined, offset: string | undefined): { page: OffsetPage; onlyChannel: string | null } {
  const errors: FieldError[] = [];
  let onlyChannel: string | null = null;
  if (typeof channel === 'string' && isChannel(channel)) onlyChannel = channel;
  else if (channel !== undefined && channel !== '') errors.push({ path: 'channel', message: `must be one of ${CHANNELS.join(', ')}` });
  let page: OffsetPage = { limit: 20, offset: 0 };
  try {
    page = offsetPage(limit, offset);
  } catch (error) {
    if (!(error instanceof HeraldError)) throw error;
    errors.push(...error.fieldErrors);
  }
  if (errors.length > 0) throw HeraldError.validation(errors);
  return { page, onlyChannel };
}

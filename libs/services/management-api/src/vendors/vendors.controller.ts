import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { FieldError, HeraldError, VendorTestAnswer } from '@herald/contracts';
import { RequestBodySchema, ValidBody } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, OffsetPage, offsetPage } from '../http/offset-page';
import { WorkspaceScope } from '../workspaces/workspace-scope';
import { CredentialValue, Credentials } from './credential-fields';
import { VENDOR_BODIES, VendorBodySchema, VendorTestBody } from './request-bodies';
import { CHANNELS, isChannel, vendorSpecOf } from './vendor-catalogue';
import { VendorCredentials } from './vendor-credentials';
import { StoredVendor, VendorRepository, documentOf, sealedOf } from './vendor.repository';
import { VendorTestClient } from './vendor-test-client';
import { RequiredRole } from '../auth/roles';

export interface VendorView {
  readonly id: string;
  readonly channel: string;
  readonly vendor: string;
  readonly is_enabled: boolean;
  readonly priority: number;
  /** The API base URL the dispatchers call: the override, else the vendor's default. */
  readonly base_url: string | null;
  readonly settings: Record<string, unknown>;
  /** Settings as they are; keys and secrets masked, never a secret in full. */
  readonly credentials: Record<string, CredentialValue>;
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
    private readonly vendors: VendorRepository,
    private readonly scope: WorkspaceScope,
    private readonly credentials: VendorCredentials,
    private readonly tests: VendorTestClient,
  ) {}

  /** Ordered by channel, then priority (the fallback order), then vendor. */
  @RequiredRole('viewer')
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
    const { count, vendors } = await this.vendors.list(workspace, onlyChannel, page);
    return { meta: { count, ...page }, results: vendors.map((stored) => this.view(stored)) };
  }

  @RequiredRole('viewer')
  @Get(':channel/:vendor')
  async get(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('channel') channel: string,
    @Param('vendor') vendor: string,
  ): Promise<VendorView> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    return this.view(await this.vendors.get(workspace, vendorSpecOf(channel, vendor)));
  }

  /** 201 when the vendor was not configured (or had been deleted), 200 when it was updated. */
  @RequiredRole('editor')
  @Put(':channel/:vendor')
  @RequestBodySchema(VendorBodySchema)
  async put(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('channel') channel: string,
    @Param('vendor') vendor: string,
    // Validated in the repository, with the path's vendor and what is stored (vendor-change.ts).
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<VendorView> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const { vendor: stored, created } = await this.vendors.put(workspace, vendorSpecOf(channel, vendor), body);
    void reply.status(created ? 201 : 200);
    return this.view(stored);
  }

  @RequiredRole('editor')
  @Delete(':channel/:vendor')
  @HttpCode(204)
  async remove(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('channel') channel: string,
    @Param('vendor') vendor: string,
  ): Promise<void> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    await this.vendors.remove(workspace, vendorSpecOf(channel, vendor));
  }

  /**
   * Sends one test message through the vendor as configured now (enabled or not) to the
   * body's `to`, through the dispatchers' own adapter and outbound address rule, and
   * answers what the vendor said: 200 whether it accepted the message or not (`ok`,
   * `status`, `body`, `error`); 503 when the dispatchers cannot be reached.
   */
  @RequiredRole('editor')
  @Post(':channel/:vendor/test')
  @HttpCode(200)
  async test(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('channel') channel: string,
    @Param('vendor') vendor: string,
    @ValidBody(VENDOR_BODIES.test) body: VendorTestBody,
  ): Promise<VendorTestAnswer> {
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const stored = await this.vendors.get(workspace, vendorSpecOf(channel, vendor));
    return this.tests.send(workspace, documentOf(stored, this.vendors.baseUrl(stored)), body.to);
  }

  private view(stored: StoredVendor): VendorView {
    const spec = vendorSpecOf(stored.channel, stored.vendor);
    const credentials: Credentials = this.credentials.open(stored.id, sealedOf(stored));
    return {
      id: stored.id,
      channel: stored.channel,
      vendor: stored.vendor,
      is_enabled: stored.isEnabled,
      priority: stored.priority,
      base_url: stored.baseUrl ?? spec.defaultBaseUrl(credentials),
      settings: stored.settings,
      credentials: this.credentials.mask(spec, credentials),
      has_credentials: Object.keys(credentials).length > 0,
      version: stored.version,
      created_at: stored.createdAt,
      updated_at: stored.updatedAt,
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

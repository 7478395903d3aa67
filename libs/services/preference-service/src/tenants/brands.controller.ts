import { Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { AuthenticatedWorkspace, CurrentWorkspace, ValidBody, WorkspaceAuthGuard } from '@herald/runtime';
import { parseOffsetQuery } from '../http/offset-page';
import { BrandUpsert, TENANT_BODIES, TenantUpsert } from './request-bodies';
import { TenantRepository } from './tenant.repository';

/**
 * `/v1/brand/...`: SuprSend's older name of tenants, still the only tenant API of the
 * Java SDK and the Node SDK's `brands`. The same records as `/v1/tenant/`, with
 * `brand_id`/`brand_name` for `tenant_id`/`tenant_name` in both directions.
 */
@Controller('v1/brand/:brand_id')
@UseGuards(WorkspaceAuthGuard)
export class BrandsController {
  constructor(private readonly tenants: TenantRepository) {}

  @Post()
  @HttpCode(201)
  async upsert(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('brand_id') brandId: string, @ValidBody(TENANT_BODIES.brandUpsert) body: BrandUpsert): Promise<unknown> {
    return brandView(await this.tenants.upsert(ws, brandId, tenantBody(body)));
  }

  @Get()
  async read(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('brand_id') brandId: string): Promise<unknown> {
    return brandView(await this.tenants.read(ws, brandId));
  }

  @Delete()
  @HttpCode(204)
  async delete(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('brand_id') brandId: string): Promise<void> {
    await this.tenants.delete(ws, brandId);
  }
}

@Controller('v1/brand')
@UseGuards(WorkspaceAuthGuard)
export class BrandListController {
  constructor(private readonly tenants: TenantRepository) {}

  @Get()
  async all(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Query() query: Record<string, unknown>): Promise<unknown> {
    const page = await this.tenants.all(ws, parseOffsetQuery(query));
    return { meta: page.meta, results: page.results.map(brandView) };
  }
}

/** A brand body as a tenant body: `brand_name` is `tenant_name`; the id comes from the path, so a `brand_id` in the body is dropped. */
function tenantBody(body: BrandUpsert): TenantUpsert {
  const { brand_id: _fromPath, brand_name, tenant_name, ...rest } = body;
  const name = brand_name ?? tenant_name;
  return name === undefined ? rest : { ...rest, tenant_name: name };
}

function brandView(tenant: Record<string, unknown>): Record<string, unknown> {
  const { tenant_id, tenant_name, ...rest } = tenant;
  return { brand_id: tenant_id, brand_name: tenant_name, ...rest };
}

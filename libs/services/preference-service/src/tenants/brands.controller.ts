import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { AuthenticatedWorkspace, CurrentWorkspace, WorkspaceAuthGuard } from '@herald/runtime';
import { parseOffsetQuery } from '../http/offset-page';
import { requiredBody } from '../http/request';
import { TenantStore } from './tenant-store';

/**
 * `/v1/brand/...`: SuprSend's older name of tenants, still the only tenant API of the
 * Java SDK and the Node SDK's `brands`. The same records as `/v1/tenant/`, with
 * `brand_id`/`brand_name` for `tenant_id`/`tenant_name` in both directions.
 */
@Controller('v1/brand/:brand_id')
@UseGuards(WorkspaceAuthGuard)
export class BrandsController {
  constructor(private readonly tenants: TenantStore) {}

  @Post()
  @HttpCode(201)
  async upsert(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('brand_id') brandId: string, @Body() body: unknown): Promise<unknown> {
    return brandView(await this.tenants.upsert(ws, brandId, tenantBody(requiredBody(body))));
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
  constructor(private readonly tenants: TenantStore) {}

  @Get()
  async all(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Query() query: Record<string, unknown>): Promise<unknown> {
    const page = await this.tenants.all(ws, parseOffsetQuery(query));
    return { meta: page.meta, results: page.results.map(brandView) };
  }
}

/** A brand body as a tenant body: `brand_name` is `tenant_name`; the id comes from the path, so a `brand_id` in the body is dropped. */
function tenantBody(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const { brand_id: _fromPath, brand_name, tenant_name, ...rest } = body as Record<string, unknown>;
  if (brand_name !== undefined && typeof brand_name !== 'string') throw HeraldError.validation([{ path: 'brand_name', message: 'must be a string' }]);
  const name = brand_name ?? tenant_name;
  return name === undefined ? rest : { ...rest, tenant_name: name };
}

function brandView(tenant: Record<string, unknown>): Record<string, unknown> {
  const { tenant_id, tenant_name, ...rest } = tenant;
  return { brand_id: tenant_id, brand_name: tenant_name, ...rest };
}

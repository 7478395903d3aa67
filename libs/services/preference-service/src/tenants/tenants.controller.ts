import { Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { CurrentWorkspace, ValidBody, WorkspaceAuthGuard } from '@herald/runtime';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { parseOffsetQuery } from '../http/offset-page';
import { TENANT_BODIES, TenantCategoryDefaultUpdate, TenantUpsert } from './request-bodies';
import { TenantRepository } from './tenant.repository';

/** Tenants and their default preferences (reference `/v1/tenant/...`). */
@Controller('v1/tenant/:tenant_id')
@UseGuards(WorkspaceAuthGuard)
export class TenantsController {
  constructor(private readonly tenants: TenantRepository) {}

  @Post()
  @HttpCode(201)
  upsert(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('tenant_id') tenantId: string, @ValidBody(TENANT_BODIES.upsert) body: TenantUpsert): Promise<unknown> {
    return this.tenants.upsert(ws, tenantId, body);
  }

  @Get()
  read(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('tenant_id') tenantId: string): Promise<unknown> {
    return this.tenants.read(ws, tenantId);
  }

  @Delete()
  @HttpCode(204)
  async delete(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('tenant_id') tenantId: string): Promise<void> {
    await this.tenants.delete(ws, tenantId);
  }

  @Patch('category/:category_slug')
  @HttpCode(202)
  updateCategory(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('tenant_id') tenantId: string, @Param('category_slug') slug: string, @ValidBody(TENANT_BODIES.categoryDefault) body: TenantCategoryDefaultUpdate): Promise<unknown> {
    return this.tenants.updateCategoryDefault(ws, tenantId, slug, body);
  }

  @Get('category')
  categories(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('tenant_id') tenantId: string, @Query() query: Record<string, unknown>): Promise<unknown> {
    return this.tenants.categoryDefaults(ws, tenantId, parseOffsetQuery(query));
  }

  @Get('preference')
  preference(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('tenant_id') tenantId: string): Promise<unknown> {
    return this.tenants.fullPreference(ws, tenantId);
  }

  @Get('preference/category')
  preferenceCategories(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('tenant_id') tenantId: string, @Query() query: Record<string, unknown>): Promise<unknown> {
    return this.tenants.categoryDefaults(ws, tenantId, parseOffsetQuery(query));
  }

  @Get('preference/category/:category')
  preferenceCategory(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('tenant_id') tenantId: string, @Param('category') slug: string): Promise<unknown> {
    return this.tenants.categoryDefault(ws, tenantId, slug);
  }

  /** The same write as `PATCH category/{slug}`, answered 200 as the reference's tenant-preference path is. */
  @Patch('preference/category/:category')
  @HttpCode(200)
  updatePreferenceCategory(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('tenant_id') tenantId: string, @Param('category') slug: string, @ValidBody(TENANT_BODIES.categoryDefault) body: TenantCategoryDefaultUpdate): Promise<unknown> {
    return this.tenants.updateCategoryDefault(ws, tenantId, slug, body);
  }
}

/** The reference's `GET /v1/tenant/` (`tenants.list` of the SDK), offset-paged. */
@Controller('v1/tenant')
@UseGuards(WorkspaceAuthGuard)
export class TenantListController {
  constructor(private readonly tenants: TenantRepository) {}

  @Get()
  all(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Query() query: Record<string, unknown>): Promise<unknown> {
    return this.tenants.all(ws, parseOffsetQuery(query));
  }
}

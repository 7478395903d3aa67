import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { AudienceAuthGuard, Workspace } from '../auth/audience-auth.guard';
import { AudienceWorkspace } from '../auth/audience-credentials';
import { requiredBody } from '../http/request';
import { TenantStore } from './tenant-store';

/** Tenants and their default preferences (reference `/v1/tenant/...`). */
@Controller('v1/tenant/:tenant_id')
@UseGuards(AudienceAuthGuard)
export class TenantsController {
  constructor(private readonly tenants: TenantStore) {}

  @Post()
  @HttpCode(201)
  upsert(@Workspace() ws: AudienceWorkspace, @Param('tenant_id') tenantId: string, @Body() body: unknown): Promise<unknown> {
    return this.tenants.upsert(ws, tenantId, requiredBody(body));
  }

  @Get()
  read(@Workspace() ws: AudienceWorkspace, @Param('tenant_id') tenantId: string): Promise<unknown> {
    return this.tenants.read(ws, tenantId);
  }

  @Delete()
  @HttpCode(204)
  async delete(@Workspace() ws: AudienceWorkspace, @Param('tenant_id') tenantId: string): Promise<void> {
    await this.tenants.delete(ws, tenantId);
  }

  @Patch('category/:category_slug')
  @HttpCode(202)
  updateCategory(@Workspace() ws: AudienceWorkspace, @Param('tenant_id') tenantId: string, @Param('category_slug') slug: string, @Body() body: unknown): Promise<unknown> {
    return this.tenants.updateCategoryDefault(ws, tenantId, slug, requiredBody(body));
  }
}

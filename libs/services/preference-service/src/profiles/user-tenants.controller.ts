import { Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { AuthenticatedWorkspace, CurrentWorkspace, ValidBody, WorkspaceAuthGuard } from '@herald/runtime';
import { parseCursorQuery } from '../http/cursor-page';
import { TenantRepository } from '../tenants/tenant.repository';
import { applyOperations, applyUpsert } from './profile-document';
import { PROFILE_BODIES, ProfileOperations, ProfileUpsert } from './request-bodies';
import { ProfileRepository } from './profile.repository';
import { userInTenantView } from './profile-views';

/**
 * A user's profile in a tenant (suprsend-py-sdk's `users.upsert_for_tenant`,
 * `get_for_tenant`, `edit(..., tenant_id=)`, `unlink_tenant`, `list_associated_tenants`):
 * properties and channels of the user for one tenant, which a run carrying that
 * tenant_id reads merged over the user's workspace profile (its keys win; `GET
 * /v1/user/{id}/?tenant_id=` shows the merge). These routes read and write the tenant's
 * part alone. Writes need the tenant to exist.
 */
@Controller('v1/user/:distinct_id')
@UseGuards(WorkspaceAuthGuard)
export class UserTenantsController {
  constructor(
    private readonly profiles: ProfileRepository,
    private readonly tenants: TenantRepository,
  ) {}

  @Get('associated_tenant')
  async list(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @Query() query: Record<string, unknown>): Promise<unknown> {
    const page = await this.profiles.tenantsOf(ws, distinctId, parseCursorQuery(query));
    return { meta: page.meta, results: page.rows.map((row) => userInTenantView(distinctId, row.tenant_id, row)) };
  }

  /** The upsert body of `POST /v1/user/{id}/`, for the tenant; makes the user when it does not exist, as that upsert does. */
  @Post('tenant/:tenant_id')
  @HttpCode(201)
  async upsert(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @Param('tenant_id') tenantId: string, @ValidBody(PROFILE_BODIES.upsert) body: ProfileUpsert): Promise<unknown> {
    await this.tenants.read(ws, tenantId);
    const profile = await this.profiles.mutateInTenant(ws, distinctId, tenantId, (p) => applyUpsert(p, body), { createUser: true });
    return userInTenantView(distinctId, tenantId, profile);
  }

  @Get('tenant/:tenant_id')
  async read(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @Param('tenant_id') tenantId: string): Promise<unknown> {
    return userInTenantView(distinctId, tenantId, await this.profiles.readInTenant(ws, distinctId, tenantId));
  }

  /** The operations of `PATCH /v1/user/{id}/`, on the tenant's profile (made when missing); the user must exist, as for that edit. */
  @Patch('tenant/:tenant_id')
  @HttpCode(202)
  async edit(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @Param('tenant_id') tenantId: string, @ValidBody(PROFILE_BODIES.operations) body: ProfileOperations): Promise<unknown> {
    await this.tenants.read(ws, tenantId);
    const profile = await this.profiles.mutateInTenant(ws, distinctId, tenantId, (p) => applyOperations(p, body), { createUser: false });
    return userInTenantView(distinctId, tenantId, profile);
  }

  @Delete('tenant/:tenant_id')
  @HttpCode(204)
  async unlink(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @Param('tenant_id') tenantId: string): Promise<void> {
    await this.profiles.unlinkTenant(ws, distinctId, tenantId);
  }
}

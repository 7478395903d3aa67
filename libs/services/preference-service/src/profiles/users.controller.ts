import { Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { CurrentWorkspace, ValidBody, WorkspaceAuthGuard } from '@herald/runtime';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { tenantQuery } from '../http/request';
import { applyOperations, applyUpsert } from './profile-document';
import { PROFILE_BODIES, ProfileOperations, ProfileUpsert } from './request-bodies';
import { ProfileRepository } from './profile.repository';
import { userView } from './profile-views';

/** Users (reference `/v1/user/{distinct_id}/`). `tenant_id` selects the per-tenant profile, merged over the global one. */
@Controller('v1/user/:distinct_id')
@UseGuards(WorkspaceAuthGuard)
export class UsersController {
  constructor(private readonly profiles: ProfileRepository) {}

  @Post()
  @HttpCode(201)
  async upsert(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @ValidBody(PROFILE_BODIES.upsert) body: ProfileUpsert): Promise<unknown> {
    const profile = await this.profiles.mutate(ws, { type: 'user', distinct_id: distinctId }, undefined, (p) => applyUpsert(p, body), { create: true });
    return userView(distinctId, profile);
  }

  @Get()
  async read(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @Query('tenant_id') tenant: unknown): Promise<unknown> {
    return userView(distinctId, await this.profiles.read(ws, { type: 'user', distinct_id: distinctId }, tenantQuery(tenant)));
  }

  @Patch()
  @HttpCode(202)
  async edit(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @ValidBody(PROFILE_BODIES.operations) body: ProfileOperations): Promise<unknown> {
    const profile = await this.profiles.mutate(ws, { type: 'user', distinct_id: distinctId }, undefined, (p) => applyOperations(p, body), { create: false });
    return userView(distinctId, profile);
  }

  @Delete()
  @HttpCode(204)
  async delete(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string): Promise<void> {
    await this.profiles.delete(ws, { type: 'user', distinct_id: distinctId });
  }
}

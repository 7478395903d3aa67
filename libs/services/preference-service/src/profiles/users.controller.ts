import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { CurrentWorkspace, WorkspaceAuthGuard } from '@herald/runtime';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { requiredBody, tenantQuery } from '../http/request';
import { applyOperations, applyUpsert } from './profile-document';
import { ProfileStore } from './profile-store';
import { userView } from './profile-views';

/** Users (reference `/v1/user/{distinct_id}/`). `tenant_id` selects the per-tenant profile, merged over the global one. */
@Controller('v1/user/:distinct_id')
@UseGuards(WorkspaceAuthGuard)
export class UsersController {
  constructor(private readonly profiles: ProfileStore) {}

  @Post()
  @HttpCode(201)
  async upsert(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @Body() body: unknown): Promise<unknown> {
    const input = requiredBody(body);
    const profile = await this.profiles.mutate(ws, { type: 'user', distinct_id: distinctId }, undefined, (p) => applyUpsert(p, input), { create: true });
    return userView(distinctId, profile);
  }

  @Get()
  async read(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @Query('tenant_id') tenant: unknown): Promise<unknown> {
    return userView(distinctId, await this.profiles.read(ws, { type: 'user', distinct_id: distinctId }, tenantQuery(tenant)));
  }

  @Patch()
  @HttpCode(202)
  async edit(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @Body() body: unknown): Promise<unknown> {
    const input = requiredBody(body);
    const profile = await this.profiles.mutate(ws, { type: 'user', distinct_id: distinctId }, undefined, (p) => applyOperations(p, input), { create: false });
    return userView(distinctId, profile);
  }

  @Delete()
  @HttpCode(204)
  async delete(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string): Promise<void> {
    await this.profiles.delete(ws, { type: 'user', distinct_id: distinctId });
  }
}

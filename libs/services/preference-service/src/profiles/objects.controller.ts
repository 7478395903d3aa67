import { Controller, Delete, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { CurrentWorkspace, ValidBody, WorkspaceAuthGuard } from '@herald/runtime';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { applyOperations, applyUpsert } from './profile-document';
import { PROFILE_BODIES, ProfileOperations, ProfileUpsert } from './request-bodies';
import { ProfileRepository } from './profile.repository';
import { objectView } from './profile-views';

/** Objects (reference `/v1/object/{object_type}/{id}/`; interface 4.4 for the delete). */
@Controller('v1/object/:object_type/:id')
@UseGuards(WorkspaceAuthGuard)
export class ObjectsController {
  constructor(private readonly profiles: ProfileRepository) {}

  @Post()
  @HttpCode(201)
  async upsert(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('object_type') type: string, @Param('id') id: string, @ValidBody(PROFILE_BODIES.upsert) body: ProfileUpsert): Promise<unknown> {
    const profile = await this.profiles.mutate(ws, { type: 'object', object_type: type, id }, undefined, (p) => applyUpsert(p, body), { create: true });
    return objectView(type, id, profile, await this.profiles.subscriptionsCount(ws, type, id));
  }

  @Get()
  async read(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('object_type') type: string, @Param('id') id: string): Promise<unknown> {
    const profile = await this.profiles.read(ws, { type: 'object', object_type: type, id });
    return objectView(type, id, profile, await this.profiles.subscriptionsCount(ws, type, id));
  }

  @Patch()
  async edit(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('object_type') type: string, @Param('id') id: string, @ValidBody(PROFILE_BODIES.operations) body: ProfileOperations): Promise<unknown> {
    const profile = await this.profiles.mutate(ws, { type: 'object', object_type: type, id }, undefined, (p) => applyOperations(p, body), { create: false });
    return objectView(type, id, profile, await this.profiles.subscriptionsCount(ws, type, id));
  }

  /** Interface 4.4: permanent; 204 with no body, 404 (short shape) when missing. */
  @Delete()
  @HttpCode(204)
  async delete(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('object_type') type: string, @Param('id') id: string): Promise<void> {
    await this.profiles.delete(ws, { type: 'object', object_type: type, id });
  }
}

import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { AuthenticatedWorkspace, CurrentWorkspace, WorkspaceAuthGuard } from '@herald/runtime';
import { parseCursorQuery } from '../http/cursor-page';
import { ProfileRepository } from './profile.repository';
import { objectView, userView } from './profile-views';

/** The reference's cursor-paged lists of users (`GET /v1/user/`) and of one type's objects (`GET /v1/object/{object_type}/`). */
@Controller('v1')
@UseGuards(WorkspaceAuthGuard)
export class ProfileListsController {
  constructor(private readonly profiles: ProfileRepository) {}

  @Get('user')
  async users(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Query() query: Record<string, unknown>): Promise<unknown> {
    const page = await this.profiles.page(ws, { subjectType: 'user' }, parseCursorQuery(query));
    return { meta: page.meta, results: page.rows.map((row) => userView(row.subject_id, row)) };
  }

  @Get('object/:object_type')
  async objects(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('object_type') type: string, @Query() query: Record<string, unknown>): Promise<unknown> {
    const page = await this.profiles.page(ws, { subjectType: 'object', objectType: type }, parseCursorQuery(query));
    return { meta: page.meta, results: page.rows.map((row) => objectView(type, row.subject_id, row, row.subscriptions_count)) };
  }
}

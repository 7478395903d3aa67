import { Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { AudienceSubject, HeraldError } from '@herald/contracts';
import { AuthenticatedWorkspace, CurrentWorkspace, ValidBody, WorkspaceAuthGuard } from '@herald/runtime';
import { parseCursorQuery } from '../http/cursor-page';
import { ListRepository } from '../lists/list.repository';
import { ProfileRepository } from '../profiles/profile.repository';
import { userView } from '../profiles/profile-views';
import { BulkObjectDelete, BulkUserDelete, SDK_COMPAT_BODIES, UserMergeBody } from './request-bodies';
import { UserMerge } from './user-merge';

/** `POST /v1/user/{distinct_id}/merge/` (the SDKs' `users.merge`). */
@Controller('v1/user/:distinct_id/merge')
@UseGuards(WorkspaceAuthGuard)
export class UserMergeController {
  constructor(private readonly merging: UserMerge) {}

  @Post()
  @HttpCode(201)
  async merge(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @ValidBody(SDK_COMPAT_BODIES.merge) body: UserMergeBody): Promise<unknown> {
    return userView(distinctId, await this.merging.merge(ws, distinctId, body));
  }
}

/** `GET /v1/user/{distinct_id}/subscribed_to/list/` (the SDKs' `users.get_lists_subscribed_to`), cursor-paged. */
@Controller('v1/user/:distinct_id/subscribed_to/list')
@UseGuards(WorkspaceAuthGuard)
export class UserListsController {
  constructor(private readonly lists: ListRepository) {}

  @Get()
  subscribedTo(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @Query() query: Record<string, unknown>): Promise<unknown> {
    return this.lists.listsOf(ws, distinctId, parseCursorQuery(query));
  }
}

/**
 * `DELETE /v1/bulk/user/` `{distinct_ids}` and `DELETE /v1/bulk/object/{object_type}/`
 * `{object_ids}` (the SDKs' `bulk_delete`): each as `DELETE` of one would, one
 * transaction each; ids that do not exist are skipped, so a retry is harmless.
 */
@Controller('v1/bulk')
@UseGuards(WorkspaceAuthGuard)
export class BulkDeleteController {
  constructor(private readonly profiles: ProfileRepository) {}

  @Delete('user')
  @HttpCode(204)
  async users(@CurrentWorkspace() ws: AuthenticatedWorkspace, @ValidBody(SDK_COMPAT_BODIES.bulkUserDelete) body: BulkUserDelete): Promise<void> {
    const ids = [...new Set(body.distinct_ids)];
    await this.deleteAll(ws, ids.map((id): AudienceSubject => ({ type: 'user', distinct_id: id })));
  }

  @Delete('object/:object_type')
  @HttpCode(204)
  async objects(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('object_type') objectType: string, @ValidBody(SDK_COMPAT_BODIES.bulkObjectDelete) body: BulkObjectDelete): Promise<void> {
    const ids = [...new Set(body.object_ids)];
    await this.deleteAll(ws, ids.map((id): AudienceSubject => ({ type: 'object', object_type: objectType, id })));
  }

  private async deleteAll(ws: AuthenticatedWorkspace, subjects: readonly AudienceSubject[]): Promise<void> {
    for (const subject of subjects) {
      await this.profiles.delete(ws, subject).catch((error: unknown) => {
        if (!(error instanceof HeraldError && error.code === 'not_found')) throw error;
      });
    }
  }
}

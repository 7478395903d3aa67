import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { AudienceSubject, FieldError, HeraldError } from '@herald/contracts';
import { AuthenticatedWorkspace, CurrentWorkspace, WorkspaceAuthGuard } from '@herald/runtime';
import { parseCursorQuery } from '../http/cursor-page';
import { requiredBody } from '../http/request';
import { ListStore } from '../lists/list-store';
import { ProfileStore } from '../profiles/profile-store';
import { userView } from '../profiles/profile-views';
import { UserMerge } from './user-merge';

/** At most this many ids per bulk delete. */
export const MAX_BULK_DELETE_IDS = 1000;

/** `POST /v1/user/{distinct_id}/merge/` (the SDKs' `users.merge`). */
@Controller('v1/user/:distinct_id/merge')
@UseGuards(WorkspaceAuthGuard)
export class UserMergeController {
  constructor(private readonly merging: UserMerge) {}

  @Post()
  @HttpCode(201)
  async merge(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @Body() body: unknown): Promise<unknown> {
    return userView(distinctId, await this.merging.merge(ws, distinctId, requiredBody(body)));
  }
}

/** `GET /v1/user/{distinct_id}/subscribed_to/list/` (the SDKs' `users.get_lists_subscribed_to`), cursor-paged. */
@Controller('v1/user/:distinct_id/subscribed_to/list')
@UseGuards(WorkspaceAuthGuard)
export class UserListsController {
  constructor(private readonly lists: ListStore) {}

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
  constructor(private readonly profiles: ProfileStore) {}

  @Delete('user')
  @HttpCode(204)
  async users(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Body() body: unknown): Promise<void> {
    const ids = idList(requiredBody(body), 'distinct_ids');
    await this.deleteAll(ws, ids.map((id): AudienceSubject => ({ type: 'user', distinct_id: id })));
  }

  @Delete('object/:object_type')
  @HttpCode(204)
  async objects(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('object_type') objectType: string, @Body() body: unknown): Promise<void> {
    const ids = idList(requiredBody(body), 'object_ids');
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

function idList(body: unknown, field: string): string[] {
  const ids = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[field] : undefined;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_BULK_DELETE_IDS) {
    throw HeraldError.validation([{ path: field, message: `must be an array of 1 to ${MAX_BULK_DELETE_IDS} ids` }]);
  }
  const errors: FieldError[] = ids.flatMap((id, i) => (typeof id === 'string' && id.trim() !== '' ? [] : [{ path: `${field}[${i}]`, message: 'must be a non-empty string' }]));
  if (errors.length > 0) throw HeraldError.validation(errors);
  return [...new Set(ids as string[])];
}

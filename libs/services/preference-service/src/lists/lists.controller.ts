import { Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { CurrentWorkspace, ValidBody, WorkspaceAuthGuard } from '@herald/runtime';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { parseCursorQuery } from '../http/cursor-page';
import { parseOffsetQuery } from '../http/offset-page';
import { ListRepository } from './list.repository';
import { ListVersionRepository } from './list-version.repository';
import { LIST_BODIES, ListMembers, ListUpsert } from './request-bodies';

/** Subscriber lists (reference `/v1/subscriber_list/...`; interface 4.3 for the members). */
@Controller('v1/subscriber_list')
@UseGuards(WorkspaceAuthGuard)
export class ListsController {
  constructor(
    private readonly lists: ListRepository,
    private readonly versions: ListVersionRepository,
  ) {}

  @Post()
  @HttpCode(201)
  create(@CurrentWorkspace() ws: AuthenticatedWorkspace, @ValidBody(LIST_BODIES.upsert) body: ListUpsert): Promise<unknown> {
    return this.lists.upsert(ws, body);
  }

  /** The SDK calls it without the trailing slash; both spellings are routed (a redirect would break the signature). */
  @Get()
  all(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Query() query: Record<string, unknown>): Promise<unknown> {
    const { limit, offset } = parseOffsetQuery(query);
    return this.lists.all(ws, limit, offset);
  }

  @Get(':list_id')
  read(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('list_id') listId: string): Promise<unknown> {
    return this.lists.read(ws, listId);
  }

  @Get(':list_id/subscriber')
  subscribers(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('list_id') listId: string, @Query() query: Record<string, unknown>): Promise<unknown> {
    return this.lists.page(ws, listId, parseCursorQuery(query));
  }

  @Post(':list_id/subscriber/add')
  @HttpCode(201)
  async add(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('list_id') listId: string, @ValidBody(LIST_BODIES.members) body: ListMembers): Promise<unknown> {
    return { success: true, affected_count: await this.lists.add(ws, listId, body) };
  }

  @Post(':list_id/subscriber/remove')
  @HttpCode(201)
  async remove(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('list_id') listId: string, @ValidBody(LIST_BODIES.members) body: ListMembers): Promise<unknown> {
    return { success: true, affected_count: await this.lists.remove(ws, listId, body) };
  }

  @Patch(':list_id/delete')
  async delete(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('list_id') listId: string): Promise<unknown> {
    await this.lists.delete(ws, listId);
    return { success: true };
  }

  /** suprsend-py-sdk's `subscriber_lists.delete`: the same as `PATCH .../delete/`. */
  @Delete(':list_id')
  deleteBySdk(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('list_id') listId: string): Promise<unknown> {
    return this.delete(ws, listId);
  }

  // Draft versions (the SDKs' start_sync ... finish_sync): replace a list's members at once.

  @Post(':list_id/start_sync')
  @HttpCode(201)
  startSync(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('list_id') listId: string): Promise<unknown> {
    return this.versions.start(ws, listId);
  }

  @Get(':list_id/version/:version_id')
  version(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('list_id') listId: string, @Param('version_id') versionId: string): Promise<unknown> {
    return this.versions.read(ws, listId, versionId);
  }

  @Post(':list_id/version/:version_id/subscriber/add')
  @HttpCode(201)
  async addToVersion(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('list_id') listId: string, @Param('version_id') versionId: string, @ValidBody(LIST_BODIES.members) body: ListMembers): Promise<unknown> {
    return { success: true, affected_count: await this.versions.add(ws, listId, versionId, body) };
  }

  @Post(':list_id/version/:version_id/subscriber/remove')
  @HttpCode(201)
  async removeFromVersion(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('list_id') listId: string, @Param('version_id') versionId: string, @ValidBody(LIST_BODIES.members) body: ListMembers): Promise<unknown> {
    return { success: true, affected_count: await this.versions.remove(ws, listId, versionId, body) };
  }

  @Patch(':list_id/version/:version_id/finish_sync')
  finishSync(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('list_id') listId: string, @Param('version_id') versionId: string): Promise<unknown> {
    return this.versions.finish(ws, listId, versionId);
  }

  @Patch(':list_id/version/:version_id/delete')
  async deleteVersion(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('list_id') listId: string, @Param('version_id') versionId: string): Promise<unknown> {
    await this.versions.delete(ws, listId, versionId);
    return { success: true };
  }

  /** suprsend-py-sdk's `subscriber_lists.delete_version`: the same as `PATCH .../delete/`. */
  @Delete(':list_id/version/:version_id')
  deleteVersionBySdk(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('list_id') listId: string, @Param('version_id') versionId: string): Promise<unknown> {
    return this.deleteVersion(ws, listId, versionId);
  }
}

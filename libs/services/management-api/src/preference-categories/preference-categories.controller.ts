import { Controller, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { ValidBody } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { COMMIT_BODY, CommitBody, commitMessageOf } from '../http/commit-message';
import { booleanOf, modeOf } from '../http/query-params';
import { WorkspaceScope } from '../workspaces/workspace-scope';
import { CategoryVersionView, PreferenceCategoryRepository } from './preference-category.repository';
import { RequiredRole } from '../auth/roles';
import { CATEGORY_BODIES, PreferenceCategoriesBody } from './request-bodies';

/**
 * `/v1/{workspace}/preference_category/`: the workspace's notification categories,
 * edited as a draft and committed live, as in the reference.
 */
@Controller('v1/:workspace/preference_category')
@UseGuards(ServiceTokenGuard)
export class PreferenceCategoriesController {
  constructor(
    private readonly scope: WorkspaceScope,
    private readonly categories: PreferenceCategoryRepository,
  ) {}

  @RequiredRole('viewer')
  @Get()
  async get(@Req() request: ManagementRequest, @Param('workspace') slug: string, @Query('mode') mode?: string): Promise<CategoryVersionView> {
    const selected = modeOf(mode);
    const workspace = await this.scope.resolve(accountOf(request), slug);
    return selected === 'live' ? this.categories.live(workspace) : this.categories.draftOrLive(workspace);
  }

  /** Saves the draft; with `commit=true` (and a commit message) also makes a valid draft live. */
  @RequiredRole('editor')
  @Post()
  @HttpCode(200)
  async save(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @ValidBody(CATEGORY_BODIES.categories) body: PreferenceCategoriesBody,
    @Query('commit') commit?: string,
    @Query('commit_message') commitMessage?: string,
  ): Promise<CategoryVersionView> {
    const shouldCommit = booleanOf('commit', commit);
    if (shouldCommit && !commitMessage?.trim()) {
      throw HeraldError.validation([{ path: 'commit_message', message: 'is required when commit=true' }]);
    }
    const workspace = await this.scope.resolve(accountOf(request), slug);
    const draft = await this.categories.saveDraft(workspace, body);
    if (!shouldCommit || !draft.validation_result.is_valid) return draft;
    return this.categories.commit(workspace, (commitMessage as string).trim());
  }

  /** The message comes from the query or the body (`{"commit_message": "..."}`), as for templates and workflows. */
  @RequiredRole('editor')
  @Patch('commit')
  async commit(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @ValidBody(COMMIT_BODY) body: CommitBody,
    @Query('commit_message') commitMessage?: string,
  ): Promise<CategoryVersionView> {
    const message = commitMessageOf(commitMessage, body);
    if (message === undefined) throw HeraldError.validation([{ path: 'commit_message', message: 'is required (in the query or the body)' }]);
    const workspace = await this.scope.resolve(accountOf(request), slug);
    return this.categories.commit(workspace, message);
  }
}

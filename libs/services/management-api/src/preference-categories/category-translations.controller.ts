import { Controller, Delete, Get, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import { ValidBody } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { ScopedWorkspace, WorkspaceScope } from '../workspaces/workspace-scope';
import { CategoryTranslation, categoryLocaleOf, categoryTranslationOf } from './category-translation';
import { CategoryTranslationRepository } from './category-translation.repository';
import { RequiredRole } from '../auth/roles';
import { CATEGORY_BODIES, CategoryTranslationBody } from './request-bodies';

/**
 * `/v1/{workspace}/preference_category/translation/...` as in the reference: per locale, the
 * names and descriptions of the sections and categories, keyed by slug. Saved as is (no draft):
 * a translation of a slug the categories do not have yet is kept for when they do.
 */
@Controller('v1/:workspace/preference_category/translation')
@UseGuards(ServiceTokenGuard)
export class CategoryTranslationsController {
  constructor(
    private readonly scope: WorkspaceScope,
    private readonly translations: CategoryTranslationRepository,
  ) {}

  @RequiredRole('viewer')
  @Get('locale')
  async locales(@Req() request: ManagementRequest, @Param('workspace') slug: string): Promise<{ results: Array<{ locale: string }> }> {
    const locales = await this.translations.locales(await this.workspace(request, slug));
    return { results: locales.map((locale) => ({ locale })) };
  }

  @RequiredRole('viewer')
  @Get('content/:locale')
  async get(@Req() request: ManagementRequest, @Param('workspace') slug: string, @Param('locale') locale: string): Promise<CategoryTranslation> {
    const valid = categoryLocaleOf(locale);
    return this.translations.get(await this.workspace(request, slug), valid);
  }

  /** Creates or replaces the locale's translation. */
  @RequiredRole('editor')
  @Post('content/:locale')
  @HttpCode(200)
  async save(
    @Req() request: ManagementRequest,
    @Param('workspace') slug: string,
    @Param('locale') locale: string,
    @ValidBody(CATEGORY_BODIES.translation) body: CategoryTranslationBody,
  ): Promise<CategoryTranslation> {
    const valid = categoryLocaleOf(locale);
    const translation = categoryTranslationOf(body);
    return this.translations.save(await this.workspace(request, slug), valid, translation);
  }

  @RequiredRole('editor')
  @Delete('content/:locale')
  @HttpCode(204)
  async remove(@Req() request: ManagementRequest, @Param('workspace') slug: string, @Param('locale') locale: string): Promise<void> {
    const valid = categoryLocaleOf(locale);
    await this.translations.remove(await this.workspace(request, slug), valid);
  }

  private workspace(request: ManagementRequest, slug: string): Promise<ScopedWorkspace> {
    return this.scope.resolve(accountOf(request), slug);
  }
}

import { Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { ValidBody } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { COMMIT_BODY, CommitBody, commitMessageOf } from '../http/commit-message';
import { OffsetList, offsetPage } from '../http/offset-page';
import { modeOf } from '../http/query-params';
import { ScopedWorkspace, WorkspaceScope } from '../workspaces/workspace-scope';
import { TranslationFileView, TranslationFileWithContent, actionOf, draftViews, fileView, parseLocaleFile, requireLocaleOfFile } from './translation-files';
import { TRANSLATION_BODIES, TranslationBody } from './request-bodies';
import { TranslationRepository, TranslationVersion } from './translation.repository';
import { RequiredRole } from '../auth/roles';

/**
 * `/v1/{workspace}/translation/...` as in the reference: locale files (`fr.json`,
 * `fr-CA.json`, `auth.en.json`) changed as drafts, committed together as a version of
 * the whole set, which can be rolled back to. Templates use the live set with `{{t "key"}}`.
 */
@Controller('v1/:workspace/translation')
@UseGuards(ServiceTokenGuard)
export class TranslationsController {
  constructor(
    private readonly scope: WorkspaceScope,
    private readonly translations: TranslationRepository,
  ) {}

  @RequiredRole('viewer')
  @Get()
  async list(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Query('mode') mode?: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
  ): Promise<OffsetList<TranslationFileView>> {
    const page = offsetPage(limit, offset);
    const files = (await this.files(await this.workspace(request, workspaceSlug), modeOf(mode))).map(withoutContent);
    return { meta: { count: files.length, ...page }, results: files.slice(page.offset, page.offset + page.limit) };
  }

  @RequiredRole('viewer')
  @Get('content/:localeFile')
  async get(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @Param('localeFile') localeFile: string, @Query('mode') mode?: string): Promise<TranslationFileWithContent> {
    parseLocaleFile(localeFile);
    const selected = modeOf(mode);
    const file = (await this.files(await this.workspace(request, workspaceSlug), selected)).find((each) => each.filename === localeFile);
    if (!file || (selected === 'draft' && file.action === 'deleted')) throw HeraldError.notFound(`translation file '${localeFile}' not found`);
    return file;
  }

  /** Creates or replaces the file's draft. */
  @RequiredRole('editor')
  @Post('content/:localeFile')
  @HttpCode(201)
  async upsert(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('localeFile') localeFile: string,
    @ValidBody(TRANSLATION_BODIES.upsert) body: TranslationBody,
  ): Promise<TranslationFileWithContent> {
    const { locale, namespace } = parseLocaleFile(localeFile);
    const content = requireLocaleOfFile(localeFile, body);
    const workspace = await this.workspace(request, workspaceSlug);
    const draft = await this.translations.saveDraft(workspace, { filename: localeFile, locale, namespace, content });
    const live = await this.translations.live(workspace.id);
    return { ...fileView(draft, actionOf(draft, live.files)), content: draft.content };
  }

  /** Marks the file for deletion at the next commit. */
  @RequiredRole('editor')
  @Delete('content/:localeFile')
  @HttpCode(204)
  async remove(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @Param('localeFile') localeFile: string): Promise<void> {
    parseLocaleFile(localeFile);
    await this.translations.deleteDraft(await this.workspace(request, workspaceSlug), localeFile);
  }

  @RequiredRole('viewer')
  @Get('version/:version')
  async version(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @Param('version') version: string): Promise<OffsetList<TranslationFileView>> {
    const versionNo = versionNoOf(version);
    const workspace = await this.workspace(request, workspaceSlug);
    const found = await this.translations.version(workspace.id, versionNo);
    if (!found) throw HeraldError.notFound(`translation version ${versionNo} not found`);
    const previous = versionNo > 1 ? await this.translations.version(workspace.id, versionNo - 1) : undefined;
    return versionList(previous, found);
  }

  @RequiredRole('editor')
  @Post('version/:version/rollback')
  @HttpCode(200)
  async rollback(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @Param('version') version: string): Promise<OffsetList<TranslationFileView>> {
    const versionNo = versionNoOf(version);
    const { before, after } = await this.translations.rollback(await this.workspace(request, workspaceSlug), versionNo);
    return versionList(before, after);
  }

  @RequiredRole('editor')
  @Patch('commit')
  @HttpCode(202)
  async commit(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @ValidBody(COMMIT_BODY) body: CommitBody,
    @Query('commit_message') commitMessage?: string,
  ): Promise<OffsetList<TranslationFileView>> {
    const message = commitMessageOf(commitMessage, body) ?? null;
    const { before, after } = await this.translations.commit(await this.workspace(request, workspaceSlug), message);
    return versionList(before, after);
  }

  private async files(workspace: ScopedWorkspace, mode: 'draft' | 'live'): Promise<TranslationFileWithContent[]> {
    const live = await this.translations.live(workspace.id);
    return draftViews(live.files, mode === 'draft' ? await this.translations.drafts(workspace.id) : []);
  }

  private workspace(request: ManagementRequest, slug: string): Promise<ScopedWorkspace> {
    return this.scope.resolve(accountOf(request), slug);
  }
}

function versionNoOf(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw HeraldError.validation([{ path: 'version', message: 'must be a positive integer' }]);
  return value;
}

/** A version's files, each with what it changed from the version before. */
function versionList(before: TranslationVersion | undefined, after: TranslationVersion): OffsetList<TranslationFileView> {
  const results = after.files.map((file) => fileView(file, actionOf(file, before?.files ?? [])));
  return { meta: { count: results.length, limit: results.length, offset: 0 }, results };
}

function withoutContent({ content: _content, ...view }: TranslationFileWithContent): TranslationFileView {
  return view;
}

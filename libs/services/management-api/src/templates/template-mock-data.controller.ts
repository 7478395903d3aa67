import { Controller, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { Channel, FieldError, JsonRecord } from '@herald/contracts';
import { ValidBody } from '@herald/runtime';
import { RenderedContent, TemplateEngine, localeTranslationsOf, renderVariant, translationScope } from '@herald/rendering';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { committedFiles } from '../translations/translation-files';
import { TranslationRepository } from '../translations/translation.repository';
import { ScopedWorkspace, WorkspaceScope } from '../workspaces/workspace-scope';
import { MockData, transformedData, updateMockData } from './mock-data';
import { channelOf, modeOf } from './template-params';
import { Mode, TemplateRow } from './template-rows';
import { TemplateRepository, variantNotFound } from './template.repository';
import { mjmlErrors, validateContent } from './variant-content';
import { RequiredRole } from '../auth/roles';
import { DraftPreviewBody, MockDataBody, PreviewBody, TEMPLATE_BODIES } from './request-bodies';

export interface MockDataView {
  readonly data: MockData;
  readonly transformed_data: JsonRecord;
}

export interface PreviewView {
  readonly template_slug: string;
  readonly channel: string;
  readonly variant_id: string;
  readonly mode: Mode;
  /** The locale `{{t}}` keys were looked up for (then its language, then the base language). */
  readonly locale: string;
  /** What the variant was rendered with: the body's `data`, else the template's transformed mock data. */
  readonly data: JsonRecord;
  /** The content as a dispatcher would send it; null when it does not render (`error` says why). */
  readonly rendered: RenderedContent | null;
  /** `field: path` of each placeholder the data had no value for. */
  readonly missing_variables: readonly string[];
  readonly error: string | null;
}

/** A preview of content not saved yet: as a saved variant's, with what a save would report on the content. */
export interface DraftPreviewView extends Omit<PreviewView, 'variant_id'> {
  /** Content problems by path relative to the content (as a variant's `errors`); the commit refuses a variant with any. */
  readonly errors: Record<string, string[]>;
}

/**
 * A template's mock data (the reference's `mock_data`: sample input for previews), and
 * Herald's preview of any variant rendered with it by the dispatchers' own renderer,
 * so what the preview shows is what would be sent. Mock data is one per template, not
 * versioned: `mode` is accepted and both modes read the same.
 */
@Controller('v2/:workspace/template/:template_slug')
@UseGuards(ServiceTokenGuard)
export class TemplateMockDataController {
  private readonly engine = new TemplateEngine();

  constructor(
    private readonly scope: WorkspaceScope,
    private readonly templates: TemplateRepository,
    private readonly translations: TranslationRepository,
  ) {}

  @RequiredRole('viewer')
  @Get('mock_data')
  async get(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('template_slug') slug: string,
    @Query('mode') mode?: string,
  ): Promise<MockDataView> {
    modeOf(mode);
    const workspace = await this.scope.resolve(accountOf(request), workspaceSlug);
    return mockDataView(await this.templates.mockData(workspace, slug));
  }

  /** Partial: the fields given replace the current ones. */
  @RequiredRole('editor')
  @Patch('mock_data')
  async update(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('template_slug') slug: string,
    @ValidBody(TEMPLATE_BODIES.mockData) body: MockDataBody,
  ): Promise<MockDataView> {
    const workspace = await this.scope.resolve(accountOf(request), workspaceSlug);
    const saved = await this.templates.updateMockData(workspace, slug, (current) => updateMockData(current, body));
    return mockDataView(saved);
  }

  /**
   * Renders the variant (draft by default, `mode=live` for the live copy) with the
   * body's `data` if given, else with the template's mock data, and `{{t}}` keys from
   * the translations of the same mode (the drafts applied to the live files, as a commit
   * would) for the body's `locale`, else the variant's. A variant that does not render
   * is still a 200: the answer's `error` says why, as a delivery would fail.
   */
  @RequiredRole('viewer')
  @Post('channel/:channel/variant/:variant_id/preview')
  @HttpCode(200)
  async preview(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('template_slug') slug: string,
    @Param('channel') rawChannel: string,
    @Param('variant_id') variantId: string,
    @ValidBody(TEMPLATE_BODIES.preview) body: PreviewBody,
    @Query('mode') rawMode?: string,
  ): Promise<PreviewView> {
    const channel = channelOf(rawChannel);
    const mode = modeOf(rawMode);
    const { data: given, locale: givenLocale } = body;
    const workspace = await this.scope.resolve(accountOf(request), workspaceSlug);
    const template = await this.templates.requireTemplate(this.templates.connection, workspace, slug);
    const variant = await this.templates.variant(this.templates.connection, template.id, mode, channel, variantId);
    if (!variant) throw variantNotFound(slug, channel, variantId, mode);
    const rendering = await this.render(workspace, template, mode, channel, variant.content as JsonRecord, given, givenLocale ?? variant.locale);
    return { template_slug: slug, channel, variant_id: variantId, mode, ...rendering };
  }

  /**
   * Renders content that is not saved yet (an editor's draft, as the user types) as the
   * draft variant would render once saved: the body's `content` for the channel, with its
   * `data` or the template's mock data, and the draft translations for its `locale`
   * (default en). `errors` lists what a save would report on the content (the commit
   * refuses a variant with any); it renders anyway, as far as it can.
   */
  @RequiredRole('viewer')
  @Post('channel/:channel/preview')
  @HttpCode(200)
  async previewDraft(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('template_slug') slug: string,
    @Param('channel') rawChannel: string,
    @ValidBody(TEMPLATE_BODIES.draftPreview) body: DraftPreviewBody,
  ): Promise<DraftPreviewView> {
    const channel = channelOf(rawChannel);
    const { data: given, locale: givenLocale, content } = body;
    const errors = [...validateContent(channel, content), ...(await mjmlErrors(channel, content))];
    const workspace = await this.scope.resolve(accountOf(request), workspaceSlug);
    const template = await this.templates.requireTemplate(this.templates.connection, workspace, slug);
    const rendering = await this.render(workspace, template, 'draft', channel, content, given, givenLocale ?? BASE_PREVIEW_LOCALE);
    return { template_slug: slug, channel, mode: 'draft', errors: errorsByPath(errors), ...rendering };
  }

  private async render(
    workspace: ScopedWorkspace,
    template: TemplateRow,
    mode: Mode,
    channel: Channel,
    content: JsonRecord,
    given: JsonRecord | undefined,
    locale: string,
  ): Promise<Pick<PreviewView, 'locale' | 'data' | 'rendered' | 'missing_variables' | 'error'>> {
    const data = given ?? transformedData(await this.templates.mockData(workspace, template.slug));
    const strict = mode === 'live' ? (template.live?.strict ?? false) : (template.strict ?? false);
    const live = await this.translations.live(workspace.id);
    const files = mode === 'live' ? live.files : committedFiles(live.files, await this.translations.drafts(workspace.id));
    const translations = translationScope(localeTranslationsOf(files), locale);
    const result = await renderVariant(this.engine, channel, content, data, { strict, translations });
    return {
      locale,
      data,
      rendered: result.ok ? result.content : null,
      missing_variables: result.ok ? result.missingVariables : [],
      error: result.ok ? null : result.reason,
    };
  }
}

function mockDataView(data: MockData): MockDataView {
  return { data, transformed_data: transformedData(data) };
}

/** The locale a draft's `{{t}}` keys are looked up for when the request names none (the base language). */
const BASE_PREVIEW_LOCALE = 'en';

function errorsByPath(errors: readonly FieldError[]): Record<string, string[]> {
  const byPath: Record<string, string[]> = {};
  for (const error of errors) (byPath[error.path] ??= []).push(error.message);
  return byPath;
}

import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { FieldError, HeraldError } from '@herald/contracts';
import { AuthenticatedWorkspace, CurrentWorkspace, WorkspaceAuthGuard } from '@herald/runtime';
import { LiveDefinitions } from '../read-models/live-definitions';

/** The part of management's live template document (definition.changed) these reads show. */
export interface AnnouncedTemplateDocument {
  readonly slug: string;
  readonly name: string;
  readonly description: string | null;
  readonly tags?: readonly string[];
  readonly status: 'draft' | 'active';
  readonly version_no: number | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly enabled_channels: readonly string[];
  readonly channels: ReadonlyArray<{ channel: string; is_active: boolean }>;
  readonly variants: ReadonlyArray<{
    channel: string;
    locale: string;
    content: Record<string, unknown>;
    needs_vendor_approval: boolean;
    approval_status: string;
    created_at: string;
  }>;
}

const MAX_LIMIT = 1000;
const DEFAULT_LIMIT = 20;

/**
 * Reference `fetch-template-list`, `fetch-template-details` and
 * `fetch-template-details-channel` on the notification API: the engine already keeps
 * every template's live document (its definitions read model), so it answers these
 * reads without asking management. Only committed templates show; a draft has nothing
 * live to send.
 */
@Controller('v1/template')
@UseGuards(WorkspaceAuthGuard)
export class LiveTemplatesController {
  constructor(private readonly definitions: LiveDefinitions) {}

  @Get()
  async list(@CurrentWorkspace() workspace: AuthenticatedWorkspace, @Query() query: Record<string, unknown>): Promise<unknown> {
    const { limit, offset, channels, isActive, isArchived } = listQuery(query);
    const templates = (await this.definitions.liveTemplates<AnnouncedTemplateDocument>(workspace.id))
      .filter(isCommitted)
      .filter((t) => channels === null || t.enabled_channels.some((c) => channels.includes(c)))
      .filter((t) => isActive === null || t.channels.some((c) => c.is_active) === isActive)
      // Herald archives nothing: an archived-only filter finds none.
      .filter(() => isArchived !== true);
    return { meta: { count: templates.length, limit, offset }, results: templates.slice(offset, offset + limit).map(templateDetail) };
  }

  @Get(':template_slug')
  async read(@CurrentWorkspace() workspace: AuthenticatedWorkspace, @Param('template_slug') slug: string): Promise<unknown> {
    return templateDetail(await this.template(workspace, slug));
  }

  @Get(':template_slug/channel/:channel_slug')
  async channel(@CurrentWorkspace() workspace: AuthenticatedWorkspace, @Param('template_slug') slug: string, @Param('channel_slug') channel: string): Promise<unknown> {
    const template = await this.template(workspace, slug);
    const summary = template.channels.find((c) => c.channel === channel);
    if (!summary) throw HeraldError.notFound(`channel '${channel}' not found in template '${slug}'`);
    const variants = template.variants.filter((v) => v.channel === channel);
    return {
      channel: { name: channel, slug: channel, is_template_approval_needed: variants.some((v) => v.needs_vendor_approval) },
      is_active: summary.is_active,
      is_enabled: template.enabled_channels.includes(channel),
      created_at: template.created_at,
      updated_at: template.updated_at,
      disabled_languages: [],
      versions: [
        {
          status: 'active',
          version_tag: String(template.version_no),
          created_at: template.updated_at,
          updated_at: template.updated_at,
          published_languages: [...new Set(variants.map((v) => v.locale))],
          templates: variants.map((v) => ({
            language: { name: v.locale, slug: v.locale },
            is_enabled: true,
            approval_status: v.needs_vendor_approval ? v.approval_status : 'auto_approved',
            content: v.content,
            created_at: v.created_at,
            updated_at: v.created_at,
            approval_cycle: null,
            is_approval_needed: v.needs_vendor_approval,
            is_cloned_from_last_version: false,
          })),
        },
      ],
    };
  }

  private async template(workspace: AuthenticatedWorkspace, slug: string): Promise<AnnouncedTemplateDocument> {
    const template = await this.definitions.liveTemplate<AnnouncedTemplateDocument>(workspace.id, slug);
    if (!template || !isCommitted(template)) throw HeraldError.notFound(`template (slug: '${slug}') not found`);
    return template;
  }
}

const isCommitted = (template: AnnouncedTemplateDocument): boolean => template.version_no !== null;

function templateDetail(template: AnnouncedTemplateDocument): Record<string, unknown> {
  const languages = [...new Set(template.variants.map((v) => v.locale))];
  return {
    name: template.name,
    slug: template.slug,
    description: template.description,
    is_active: template.channels.some((c) => c.is_active),
    default_language: { name: 'en', slug: 'en' },
    created_at: template.created_at,
    updated_at: template.updated_at,
    is_auto_translate_enabled: false,
    enabled_languages: languages,
    tags: template.tags ?? [],
    channels: template.channels.map((c) => ({
      channel: { name: c.channel, slug: c.channel },
      is_active: c.is_active,
      is_enabled: template.enabled_channels.includes(c.channel),
      languages: [...new Set(template.variants.filter((v) => v.channel === c.channel).map((v) => v.locale))],
    })),
  };
}

function listQuery(query: Record<string, unknown>): { limit: number; offset: number; channels: string[] | null; isActive: boolean | null; isArchived: boolean | null } {
  const errors: FieldError[] = [];
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const value = query[name];
    if (value === undefined || value === '') return fallback;
    const n = Number(value);
    if (typeof value !== 'string' || !Number.isSafeInteger(n) || n < min || n > max) errors.push({ path: name, message: `must be an integer from ${min} to ${max}` });
    return n;
  };
  const flag = (name: string): boolean | null => {
    const value = query[name];
    if (value === undefined || value === '') return null;
    if (value === 'true' || value === 'false') return value === 'true';
    errors.push({ path: name, message: 'must be true or false' });
    return null;
  };
  const limit = integer('limit', DEFAULT_LIMIT, 1, MAX_LIMIT);
  const offset = integer('offset', 0, 0, Number.MAX_SAFE_INTEGER);
  const channelsValue = query.has_channels_any;
  let channels: string[] | null = null;
  if (typeof channelsValue === 'string' && channelsValue !== '') channels = channelsValue.split(',').map((c) => c.trim());
  else if (channelsValue !== undefined && channelsValue !== '') errors.push({ path: 'has_channels_any', message: 'must be a comma-separated list of channels' });
  const isActive = flag('is_active');
  const isArchived = flag('is_archived');
  if (errors.length > 0) throw HeraldError.validation(errors);
  return { limit, offset, channels, isActive, isArchived };
}

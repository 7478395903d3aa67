import { Controller, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ValidBody } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, offsetPage } from '../http/offset-page';
import { ScopedWorkspace, WorkspaceScope } from '../workspaces/workspace-scope';
import { EventChange, EventRow, EventDefinitionRepository, LinkedWorkflow } from './event-definition.repository';
import { RequiredRole } from '../auth/roles';
import { EVENT_BODIES, EventBody, EventChange as EventChangeBody } from './request-bodies';

const EVENT_JSON_SCHEMA = 'https://schema.suprsend.com/event/v1/schema.json';

export interface EventView {
  readonly name: string;
  readonly description: string;
  readonly payload_schema: { readonly schema: string; readonly version_no: number | null } | null;
  readonly created_at: Date;
  readonly $schema: string;
}

/**
 * `/v1/{workspace}/event/...` as in the reference: the events seen (registered here, or the
 * trigger of a live workflow), the live workflows they trigger, and the schema linked to each.
 */
@Controller('v1/:workspace/event')
@UseGuards(ServiceTokenGuard)
export class EventsController {
  constructor(
    private readonly scope: WorkspaceScope,
    private readonly events: EventDefinitionRepository,
  ) {}

  @RequiredRole('viewer')
  @Get()
  async list(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
  ): Promise<OffsetList<EventView>> {
    const page = offsetPage(limit, offset);
    const { count, rows } = await this.events.list(await this.workspace(request, workspaceSlug), page);
    return { meta: { count, ...page }, results: rows.map(eventView) };
  }

  /** Registers an event, or updates the one of that name. */
  @RequiredRole('editor')
  @Post()
  @HttpCode(200)
  async register(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @ValidBody(EVENT_BODIES.register) body: EventBody): Promise<EventView> {
    return eventView(await this.events.save(await this.workspace(request, workspaceSlug), body.name, changeOf(body), false));
  }

  @RequiredRole('viewer')
  @Get(':name')
  async get(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @Param('name') name: string): Promise<EventView> {
    return eventView(await this.events.get(await this.workspace(request, workspaceSlug), name));
  }

  /** Changes the description or links a schema; the event must have been seen (404 otherwise). */
  @RequiredRole('editor')
  @Patch(':name')
  async update(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('name') name: string,
    @ValidBody(EVENT_BODIES.change) body: EventChangeBody,
  ): Promise<EventView> {
    return eventView(await this.events.save(await this.workspace(request, workspaceSlug), name, changeOf(body), true));
  }

  @RequiredRole('viewer')
  @Get(':name/linked_workflows')
  async linkedWorkflows(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('name') name: string,
  ): Promise<{ results: LinkedWorkflow[] }> {
    return { results: await this.events.linkedWorkflows(await this.workspace(request, workspaceSlug), name) };
  }

  @RequiredRole('editor')
  @Patch(':name/delink_schema')
  async delinkSchema(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @Param('name') name: string): Promise<EventView> {
    return eventView(await this.events.delinkSchema(await this.workspace(request, workspaceSlug), name));
  }

  private workspace(request: ManagementRequest, slug: string): Promise<ScopedWorkspace> {
    return this.scope.resolve(accountOf(request), slug);
  }
}

/** What a body sets: its description, and its schema link with an absent version as the live one (null). */
function changeOf(body: EventChangeBody): EventChange {
  const link = body.payload_schema;
  return { description: body.description, payload_schema: link && { schema: link.schema, version_no: link.version_no ?? null } };
}

function eventView(row: EventRow): EventView {
  return {
    name: row.name,
    description: row.description,
    payload_schema: row.schema_slug === null ? null : { schema: row.schema_slug, version_no: row.schema_version_no },
    created_at: row.created_at,
    $schema: EVENT_JSON_SCHEMA,
  };
}

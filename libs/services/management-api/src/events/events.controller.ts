import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { FieldError, HeraldError } from '@herald/contracts';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, offsetPage } from '../http/offset-page';
import { ScopedWorkspace, WorkspaceScope } from '../workspaces/workspace-scope';
import { EventChange, EventRow, EventStore, LinkedWorkflow } from './event-store';
import { RequiredRole } from '../auth/roles';

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
    private readonly store: EventStore,
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
    const { count, rows } = await this.store.list(await this.workspace(request, workspaceSlug), page);
    return { meta: { count, ...page }, results: rows.map(eventView) };
  }

  /** Registers an event, or updates the one of that name. */
  @RequiredRole('editor')
  @Post()
  @HttpCode(200)
  async register(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @Body() body: unknown): Promise<EventView> {
    const { name, change } = registrationOf(body);
    return eventView(await this.store.save(await this.workspace(request, workspaceSlug), name, change, false));
  }

  @RequiredRole('viewer')
  @Get(':name')
  async get(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @Param('name') name: string): Promise<EventView> {
    return eventView(await this.store.get(await this.workspace(request, workspaceSlug), name));
  }

  /** Changes the description or links a schema; the event must have been seen (404 otherwise). */
  @RequiredRole('editor')
  @Patch(':name')
  async update(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @Param('name') name: string, @Body() body: unknown): Promise<EventView> {
    const { change, errors } = changeOf(body, ['description', 'payload_schema']);
    if (errors.length > 0) throw HeraldError.validation(errors);
    return eventView(await this.store.save(await this.workspace(request, workspaceSlug), name, change, true));
  }

  @RequiredRole('viewer')
  @Get(':name/linked_workflows')
  async linkedWorkflows(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('name') name: string,
  ): Promise<{ results: LinkedWorkflow[] }> {
    return { results: await this.store.linkedWorkflows(await this.workspace(request, workspaceSlug), name) };
  }

  @RequiredRole('editor')
  @Patch(':name/delink_schema')
  async delinkSchema(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @Param('name') name: string): Promise<EventView> {
    return eventView(await this.store.delinkSchema(await this.workspace(request, workspaceSlug), name));
  }

  private workspace(request: ManagementRequest, slug: string): Promise<ScopedWorkspace> {
    return this.scope.resolve(accountOf(request), slug);
  }
}

function registrationOf(body: unknown): { name: string; change: EventChange } {
  const { change, errors } = changeOf(body, ['name', 'description', 'payload_schema']);
  const name = (body as Record<string, unknown>).name;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 255) errors.push({ path: 'name', message: 'is required: a non-empty string of at most 255 characters' });
  if (errors.length > 0) throw HeraldError.validation(errors);
  return { name: name as string, change };
}

/** `description` and `payload_schema` ({schema, version_no?}) of a body, and every problem by its path. */
function changeOf(body: unknown, fieldsAllowed: string[]): { change: EventChange; errors: FieldError[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw HeraldError.validation([{ path: '', message: 'the body must be a JSON object' }]);
  const fields = body as Record<string, unknown>;
  const found: FieldError[] = Object.keys(fields)
    .filter((key) => !fieldsAllowed.includes(key))
    .map((key) => ({ path: key, message: `is not a field of an event (${fieldsAllowed.join(', ')})` }));
  if (fields.description !== undefined && typeof fields.description !== 'string') found.push({ path: 'description', message: 'must be a string' });
  let payloadSchema: EventChange['payload_schema'];
  const link = fields.payload_schema;
  if (link !== undefined) {
    if (typeof link !== 'object' || link === null || Array.isArray(link)) found.push({ path: 'payload_schema', message: 'must be an object {schema, version_no?}' });
    else {
      const { schema, version_no: versionNo, ...rest } = link as Record<string, unknown>;
      if (typeof schema !== 'string' || schema === '') found.push({ path: 'payload_schema.schema', message: 'is required: a schema slug' });
      // At most Postgres' integer (the column's type): 1e308 is an integer to JavaScript and a 500 to Postgres.
      if (versionNo !== undefined && versionNo !== null && !(Number.isInteger(versionNo) && (versionNo as number) > 0 && (versionNo as number) <= 2_147_483_647)) {
        found.push({ path: 'payload_schema.version_no', message: 'must be a positive integer or null (the live version)' });
      }
      for (const key of Object.keys(rest)) found.push({ path: `payload_schema.${key}`, message: 'is not a field of payload_schema (schema, version_no)' });
      payloadSchema = { schema: schema as string, version_no: (versionNo as number | null | undefined) ?? null };
    }
  }
  return { change: { description: fields.description as string | undefined, payload_schema: payloadSchema }, errors: found };
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

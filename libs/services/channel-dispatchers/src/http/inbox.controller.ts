import { Body, Controller, Get, HttpCode, Param, Patch, Query, UseGuards } from '@nestjs/common';
import { FieldError, HeraldError } from '@herald/contracts';
import { InboxItem, InboxStore, InboxUpdate } from '../inbox/inbox-store';
import { InboxWorkspace } from '../read-models/api-key-read-model';
import { CurrentWorkspace, InboxAuthGuard } from './inbox-auth.guard';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;
const CURSOR = /^[1-9]\d{0,18}$/;
const UPDATE_FIELDS = ['seen', 'read', 'archived', 'clicked'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The inbox of decisions.md: `GET /v1/user/{distinct_id}/inbox/` lists the recipient's
 * inbox messages newest first (cursor meta as every cursor list), and
 * `PATCH .../inbox/{id}/` sets or clears seen, read and archived, and records a click
 * (`clicked: true`). Seen and clicked are reported to the run as delivery outcomes.
 */
// Same parameter name as preference-service's /v1/user/:distinct_id routes: they share one router in the embedded mode.
@Controller('v1/user/:distinct_id/inbox')
@UseGuards(InboxAuthGuard)
export class InboxController {
  constructor(private readonly inbox: InboxStore) {}

  @Get()
  async list(
    @CurrentWorkspace() workspace: InboxWorkspace,
    @Param('distinct_id') distinctId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<{ meta: Record<string, unknown>; results: readonly InboxItem[] }> {
    const page = pageOf(query);
    const result = await this.inbox.list(workspace.id, distinctId, page);
    return {
      meta: {
        limit: page.limit,
        count: result.items.length,
        before: result.before ?? null,
        after: result.after ?? null,
        has_prev: result.hasPrev,
        has_next: result.hasNext,
      },
      results: result.items,
    };
  }

  @Patch(':id')
  @HttpCode(200)
  async update(
    @CurrentWorkspace() workspace: InboxWorkspace,
    @Param('distinct_id') distinctId: string,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<InboxItem> {
    const update = updateOf(body);
    const item = UUID.test(id) ? await this.inbox.update(workspace.id, distinctId, id, update) : null;
    if (item === null) throw HeraldError.notFound(`inbox message '${id}' not found`);
    return item;
  }
}

function pageOf(query: Record<string, unknown>): { limit: number; before?: string; after?: string } {
  const errors: FieldError[] = [];
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) errors.push({ path: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` });
  const cursor = (name: 'before' | 'after'): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !CURSOR.test(value)) errors.push({ path: name, message: 'must be a cursor from a previous page' });
    return typeof value === 'string' ? value : undefined;
  };
  const before = cursor('before');
  const after = cursor('after');
  if (before !== undefined && after !== undefined) errors.push({ path: 'before', message: 'cannot be combined with after' });
  if (errors.length > 0) throw HeraldError.validation(errors);
  return { limit, before, after };
}

function updateOf(body: unknown): InboxUpdate {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw HeraldError.validation([{ path: '', message: 'must be a JSON object' }]);
  const record = body as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const name of Object.keys(record)) {
    if (!UPDATE_FIELDS.includes(name)) errors.push({ path: name, message: 'is not a field of an inbox update (seen, read, archived, clicked)' });
    else if (typeof record[name] !== 'boolean') errors.push({ path: name, message: 'must be a boolean' });
    // A click is an event that happened; there is nothing to clear.
    else if (name === 'clicked' && record[name] === false) errors.push({ path: name, message: 'can only be true' });
  }
  if (Object.keys(record).length === 0) errors.push({ path: '', message: 'must set seen, read, archived or clicked' });
  if (errors.length > 0) throw HeraldError.validation(errors);
  return record as InboxUpdate;
}

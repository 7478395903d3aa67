import { Controller, Get, HttpCode, Inject, Param, Patch, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FieldError, HeraldError, readQueryBigint } from '@herald/contracts';
import { CLOCK, Clock, ValidBody } from '@herald/runtime';
import { InboxOwner } from '../inbox/inbox-owner';
import { InboxItem, InboxRepository } from '../inbox/inbox.repository';
import { DISPATCH_BODIES, InboxMessageUpdate } from './dispatch-schemas';
import { InboxStreams } from '../inbox/inbox-streams';
import { CurrentCaller, InboxAuthGuard, InboxCaller } from './inbox-auth.guard';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The inbox of decisions.md: `GET /v1/user/{distinct_id}/inbox/` lists the recipient's
 * inbox messages newest first (cursor meta as every cursor list), and
 * `PATCH .../inbox/{id}/` sets or clears seen, read and archived, and records a click
 * (`clicked: true`). Seen and clicked are reported to the run as delivery outcomes.
 * The list's meta counts the unseen and unread messages (archived ones aside).
 * `GET .../inbox/stream/` is a server-sent-events stream of the recipient's new
 * (`item`) and changed (`update`) messages. A browser calls all of them with a public
 * key and a user token (InboxAuthGuard).
 */
// Same parameter name as preference-service's /v1/user/:distinct_id routes: they share one router in the embedded mode.
@Controller('v1/user/:distinct_id/inbox')
@UseGuards(InboxAuthGuard)
export class InboxController {
  constructor(
    private readonly inbox: InboxRepository,
    private readonly streams: InboxStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  async list(
    @CurrentCaller() caller: InboxCaller,
    @Param('distinct_id') distinctId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<{ meta: Record<string, unknown>; results: readonly InboxItem[] }> {
    const page = pageOf(query);
    const owner = ownerOf(caller, distinctId);
    const [result, counts] = await Promise.all([this.inbox.list(owner, page), this.inbox.counts(owner)]);
    return {
      meta: {
        unseen_count: counts.unseen,
        unread_count: counts.unread,
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

  /**
   * Server-sent events until the user token expires (the page reconnects with a new
   * one) or the page leaves: `ready` with the counts, then `item` and `update` with the
   * message, and a `ping` event to keep proxies from closing it. A browser's only (403
   * with an API key); 429 when the recipient or the public key holds too many streams
   * on this replica.
   */
  @Get('stream')
  async stream(
    @CurrentCaller() caller: InboxCaller,
    @Param('distinct_id') distinctId: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // A backend has webhooks; an open stream per API key would only be a way to hold sockets.
    if (caller.userToken === undefined) throw new HeraldError('permission_denied', 'the inbox stream is for a browser: a public key and a user token');
    const owner = ownerOf(caller, distinctId);
    const counts = await this.inbox.counts(owner);
    const raw = reply.raw;
    const sink = {
      send: (event: string, data: unknown): void => {
        raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      },
      end: (): void => {
        raw.end();
      },
    };
    const close = this.streams.open(owner, caller.limitKey, sink);
    if (close === null) throw new HeraldError('rate_limited', 'too many open inbox streams for this user or key');
    reply.hijack();
    raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // Proxies such as nginx otherwise buffer the stream.
      'x-accel-buffering': 'no',
    });
    raw.write('retry: 5000\n\n');
    sink.send('ready', { unseen_count: counts.unseen, unread_count: counts.unread });
    const expiresInMs = caller.userToken === undefined ? undefined : caller.userToken.exp * 1000 - this.clock.now().getTime();
    const expiry = expiresInMs === undefined ? undefined : setTimeout(() => raw.end(), Math.max(0, Math.min(expiresInMs, 2 ** 31 - 1)));
    request.raw.on('close', () => {
      if (expiry) clearTimeout(expiry);
      close();
    });
  }

  @Patch(':id')
  @HttpCode(200)
  async update(
    @CurrentCaller() caller: InboxCaller,
    @Param('distinct_id') distinctId: string,
    @Param('id') id: string,
    @ValidBody(DISPATCH_BODIES.inboxMessageUpdate) update: InboxMessageUpdate,
  ): Promise<InboxItem> {
    if (Object.keys(update).length === 0) throw HeraldError.validation([{ path: '', message: 'must set seen, read, archived or clicked' }]);
    const item = UUID.test(id) ? await this.inbox.update(ownerOf(caller, distinctId), id, update) : null;
    if (item === null) throw HeraldError.notFound(`inbox message '${id}' not found`);
    return item;
  }
}

/**
 * A user token that names a tenant (`tenant_id`, as the reference's browser SDKs send it)
 * sees that tenant's messages only; an API key, or a token without one, sees them all.
 */
function ownerOf(caller: InboxCaller, distinctId: string): InboxOwner {
  return { workspaceId: caller.workspace.id, distinctId, tenantId: caller.userToken?.tenantId };
}

function pageOf(query: Record<string, unknown>): { limit: number; before?: string; after?: string } {
  const errors: FieldError[] = [];
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) errors.push({ path: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` });
  const cursor = (name: 'before' | 'after'): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    // A cursor is an item's bigint sequence: past the bigint range it names nothing (and Postgres would refuse to compare it).
    return readQueryBigint(value, name, errors, 'must be a cursor from a previous page')?.toString();
  };
  const before = cursor('before');
  const after = cursor('after');
  if (before !== undefined && after !== undefined) errors.push({ path: 'before', message: 'cannot be combined with after' });
  if (errors.length > 0) throw HeraldError.validation(errors);
  return { limit, before, after };
}

import { Controller, Get, Headers, HttpCode, Options, Param, Post, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { BrowserAuthenticator, RequestBodySchema, SuprSendClientErrorFilter, ValidBody } from '@herald/runtime';
import { isNotificationId } from '../inbox/feed-query';
import { FeedRepository } from '../inbox/feed.repository';
import { InboxOwner } from '../inbox/inbox-owner';
import { InboxRepository } from '../inbox/inbox.repository';
import { JsInboxItem, jsInboxItemOf, jsInboxPageOf, jsInboxUpdateOf, readJsInboxCountQuery, readJsInboxPageQuery } from '../inbox/js-inbox-protocol';
import { DISPATCH_BODIES, JsInboxActionBody, JsInboxClick, JsInboxUserSchema } from './dispatch-schemas';
import { JsInboxCaller, JsInboxOwner, JsInboxUserGuard, JsInboxWorkspace, JsInboxWorkspaceGuard } from './js-inbox-auth';
import { markAllRead } from './feed.controller';

/** Where `@suprsend/js-inbox`'s hosts point: `apiHost`, `collectorHost` and `socketHost` are all `{base_url}/js-inbox`. */
export const JS_INBOX_PREFIX = 'js-inbox';
const JS_INBOX_CORS_METHODS = 'GET, POST, OPTIONS';

/**
 * SuprSend's older inbox protocol, as `@suprsend/js-inbox` 2.x (under
 * `@suprsend/react-inbox` 3.x) calls it, over Herald's inbox: the same messages and
 * states as `/v1/feed/` and `/v1/user/{id}/inbox/`, in this SDK's shapes
 * (inbox/js-inbox-protocol.ts). Every change goes through InboxRepository.update, so seen and
 * clicks reach the run as delivery outcomes and the user's other pages hear of it.
 * Errors in the browser SDKs' shape (`error.type`, `error.message`), CORS included.
 */
@Controller(JS_INBOX_PREFIX)
@UseFilters(SuprSendClientErrorFilter)
export class JsInboxController {
  constructor(
    private readonly feed: FeedRepository,
    private readonly inbox: InboxRepository,
  ) {}

  /** `page_no`, `page_size`, `before` and `store`: `{results, meta: {current_page, total_pages, total_count, page_size}}`. */
  @Get('notifications')
  @UseGuards(JsInboxUserGuard)
  async list(@JsInboxOwner() owner: InboxOwner, @Query() query: Record<string, unknown>): Promise<ReturnType<typeof jsInboxPageOf>> {
    const page = readJsInboxPageQuery(query);
    const found = await this.feed.numberedPage(owner, {
      offset: (page.pageNumber - 1) * page.pageSize,
      limit: page.pageSize,
      ...(page.createdBeforeMs === undefined ? {} : { createdBeforeMs: page.createdBeforeMs }),
      filter: page.filter,
    });
    return jsInboxPageOf(found.results, found.totalCount, page);
  }

  /** `{ss_bell_count, <store_id>: unread}`: the badge, and each store's unread messages. */
  @Get('notification_count')
  @UseGuards(JsInboxUserGuard)
  async count(@JsInboxOwner() owner: InboxOwner, @Query() query: Record<string, unknown>): Promise<Record<string, number>> {
    const { badge, ...stores } = await this.feed.counts(owner, readJsInboxCountQuery(query));
    return { ...stores, ss_bell_count: badge };
  }

  @Get('notification/:n_id')
  @UseGuards(JsInboxUserGuard)
  async item(@JsInboxOwner() owner: InboxOwner, @Param('n_id') id: string): Promise<{ data: JsInboxItem }> {
    const item = isNotificationId(id) ? await this.feed.item(owner, id) : null;
    if (item === null) throw HeraldError.notFound(`notification '${id}' not found`);
    return { data: jsInboxItemOf(item) };
  }

  /** `{action: read | unread | archive}` beside the user's fields; answers the message as it is now. */
  @Post('notification/:n_id/action')
  @HttpCode(200)
  @UseGuards(JsInboxUserGuard)
  async action(@JsInboxOwner() owner: InboxOwner, @Param('n_id') id: string, @ValidBody(DISPATCH_BODIES.jsInboxAction) body: JsInboxActionBody): Promise<{ data: JsInboxItem }> {
    const update = jsInboxUpdateOf(body.action);
    const updated = isNotificationId(id) ? await this.inbox.update(owner, id, update) : null;
    const item = updated === null ? null : await this.feed.item(owner, id);
    if (item === null) throw HeraldError.notFound(`notification '${id}' not found`);
    return { data: jsInboxItemOf(item) };
  }

  /** The bell was opened: the badge counts only messages stored from now on. The body is the user's fields, which the guard reads. */
  @Post('bell-clicked')
  @HttpCode(200)
  @UseGuards(JsInboxUserGuard)
  @RequestBodySchema(JsInboxUserSchema)
  async bellClicked(@JsInboxOwner() owner: InboxOwner): Promise<{ ss_bell_count: number }> {
    await this.feed.resetBadge(owner);
    return { ss_bell_count: 0 };
  }

  /** Every unread message read (and so seen). The body is the user's fields, which the guard reads. */
  @Post('mark-all-read')
  @HttpCode(200)
  @UseGuards(JsInboxUserGuard)
  @RequestBodySchema(JsInboxUserSchema)
  async markAllRead(@JsInboxOwner() owner: InboxOwner): Promise<{ updated: number }> {
    return { updated: await markAllRead(this.feed, this.inbox, owner) };
  }

  /**
   * `collectorHost`'s `/event/`: the SDK reports a click as `$notification_clicked` with the
   * message id and the workspace key alone (no user, no subscriber id), as SuprSend takes
   * it. The message must be the key's workspace's; it is marked clicked and read.
   */
  @Post('event')
  @HttpCode(202)
  @UseGuards(JsInboxWorkspaceGuard)
  async click(@JsInboxWorkspace() caller: JsInboxCaller, @ValidBody(DISPATCH_BODIES.jsInboxClick) click: JsInboxClick): Promise<{ message: 'OK' }> {
    if (click.env !== undefined && click.env !== caller.workspaceKey) throw HeraldError.validation([{ path: 'env', message: 'must be the workspace key of Authorization' }]);
    const id = click.properties.id;
    const recipient = await this.feed.recipientOf(caller.workspace.id, id);
    const updated = recipient === null ? null : await this.inbox.update({ workspaceId: caller.workspace.id, distinctId: recipient }, id, { clicked: true, read: true });
    if (updated === null) throw HeraldError.notFound(`notification '${id}' not found`);
    return { message: 'OK' };
  }
}

/** CORS preflights of the protocol's routes, answered for the origins public keys allow (BrowserAuthenticator.answerPreflight). */
@Controller(JS_INBOX_PREFIX)
export class JsInboxPreflightController {
  constructor(private readonly browsers: BrowserAuthenticator) {}

  @Options('notifications')
  list(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, JS_INBOX_CORS_METHODS);
  }

  @Options('notification_count')
  count(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, JS_INBOX_CORS_METHODS);
  }

  @Options('notification/:n_id')
  item(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, JS_INBOX_CORS_METHODS);
  }

  @Options('notification/:n_id/action')
  action(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, JS_INBOX_CORS_METHODS);
  }

  @Options('bell-clicked')
  bellClicked(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, JS_INBOX_CORS_METHODS);
  }

  @Options('mark-all-read')
  markAllRead(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, JS_INBOX_CORS_METHODS);
  }

  @Options('event')
  click(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, JS_INBOX_CORS_METHODS);
  }
}

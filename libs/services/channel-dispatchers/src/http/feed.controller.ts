import { Controller, Get, Headers, HttpCode, Options, Param, Patch, Post, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { BrowserAuthenticator, SuprSendClientErrorFilter, ValidBody } from '@herald/runtime';
import { FeedItem, isNotificationId, readFeedCountQuery, readFeedPageQuery } from '../inbox/feed-query';
import { FeedRepository } from '../inbox/feed.repository';
import { InboxOwner, InboxUpdate } from '../inbox/inbox-owner';
import { InboxRepository } from '../inbox/inbox.repository';
import { DISPATCH_BODIES, FeedNotificationsSeen } from './dispatch-schemas';
import { FeedAuthGuard, FeedOwner } from './feed-auth.guard';

/** What each mark of the SDK does to a message (interacted: clicked, and read, as the SDK shows it). */
const MARKS: Record<string, InboxUpdate> = {
  seen: { seen: true },
  read: { read: true },
  unread: { read: false },
  interacted: { clicked: true, read: true },
  archive: { archived: true },
};
/** Mark-all-read marks the unread messages this many at a time, for at most this many rounds (a page marking messages unread meanwhile cannot keep it going). */
const MARK_ALL_CHUNK = 500;
const MARK_ALL_MAX_ROUNDS = 100;
const FEED_CORS_METHODS = 'GET, POST, PATCH, OPTIONS';

/**
 * SuprSend's feed API (`/v1/feed/`, as `@suprsend/web-sdk` 4.x calls it; docs/sdk-compatibility.md)
 * over Herald's inbox: the same messages and states as `/v1/user/{id}/inbox/`, in the
 * SDK's shapes. Every mark goes through InboxRepository.update, so seen and clicks reach the
 * run as delivery outcomes and the user's other pages hear of it, as with the inbox.
 * Errors come in the SDK's shape (`error.type`, `error.message`), CORS included.
 */
@Controller('v1/feed')
@UseGuards(FeedAuthGuard)
@UseFilters(SuprSendClientErrorFilter)
export class FeedController {
  constructor(
    private readonly feed: FeedRepository,
    private readonly inbox: InboxRepository,
  ) {}

  @Get('notifications')
  async list(@FeedOwner() owner: InboxOwner, @Query() query: Record<string, unknown>): Promise<{ results: readonly FeedItem[]; meta: { total_count: number; has_more: boolean } }> {
    const page = await this.feed.page(owner, readFeedPageQuery(query));
    return { results: page.results, meta: { total_count: page.totalCount, has_more: page.hasMore } };
  }

  @Get('notifications_count')
  counts(@FeedOwner() owner: InboxOwner, @Query() query: Record<string, unknown>): Promise<Record<string, number>> {
    return this.feed.counts(owner, readFeedCountQuery(query));
  }

  @Get('notifications/:n_id')
  async item(@FeedOwner() owner: InboxOwner, @Param('n_id') id: string): Promise<FeedItem> {
    const item = isNotificationId(id) ? await this.feed.item(owner, id) : null;
    if (item === null) throw HeraldError.notFound(`notification '${id}' not found`);
    return item;
  }

  /** `seen`, `read`, `unread`, `interacted` or `archive`; answers the message as it is now. */
  @Patch('notifications/:n_id/:mark')
  @HttpCode(200)
  async mark(@FeedOwner() owner: InboxOwner, @Param('n_id') id: string, @Param('mark') mark: string): Promise<FeedItem> {
    const update = Object.hasOwn(MARKS, mark) ? MARKS[mark] : undefined;
    if (update === undefined) throw HeraldError.notFound('no such endpoint');
    const updated = isNotificationId(id) ? await this.inbox.update(owner, id, update) : null;
    const item = updated === null ? null : await this.feed.item(owner, id);
    if (item === null) throw HeraldError.notFound(`notification '${id}' not found`);
    return item;
  }

  /** Marks each message seen (an id given twice, once); ids that are not the user's are skipped. Answers the ids marked. */
  @Post('bulk/notifications/seen')
  @HttpCode(200)
  async bulkSeen(@FeedOwner() owner: InboxOwner, @ValidBody(DISPATCH_BODIES.feedNotificationsSeen) body: FeedNotificationsSeen): Promise<{ notification_ids: string[] }> {
    const marked: string[] = [];
    for (const id of new Set(body.notification_ids)) if ((await this.inbox.update(owner, id, { seen: true }, { bulk: true })) !== null) marked.push(id);
    if (marked.length > 0) await this.inbox.announceBulk(owner, 'seen', marked);
    return { notification_ids: marked };
  }

  /** Marks every unread message read (and so seen): the badge and the stores' counts go to 0. */
  @Patch('mark_all_read')
  @HttpCode(200)
  async markAllRead(@FeedOwner() owner: InboxOwner): Promise<{ updated: number }> {
    return { updated: await markAllRead(this.feed, this.inbox, owner) };
  }

  /** The bell was opened: the badge counts only messages stored from now on. */
  @Patch('reset_bell_count')
  @HttpCode(200)
  async resetBellCount(@FeedOwner() owner: InboxOwner): Promise<{ badge: number }> {
    await this.feed.resetBadge(owner);
    return { badge: 0 };
  }
}

/**
 * Marks every unread message of the owner read, one by one through InboxRepository.update (each
 * published as part of a bulk change), then announces the change whole once. Answers how
 * many it marked. Shared by the feed and `@suprsend/js-inbox`'s `mark-all-read`.
 */
export async function markAllRead(feed: FeedRepository, inbox: InboxRepository, owner: InboxOwner): Promise<number> {
  let updated = 0;
  for (let round = 0; round < MARK_ALL_MAX_ROUNDS; round += 1) {
    const ids = await feed.unreadIds(owner, MARK_ALL_CHUNK);
    if (ids.length === 0) break;
    for (const id of ids) if ((await inbox.update(owner, id, { read: true }, { bulk: true })) !== null) updated += 1;
  }
  if (updated > 0) await inbox.announceBulk(owner, 'all_read');
  return updated;
}

/** CORS preflights of the feed, answered for the origins public keys allow (BrowserAuthenticator.answerPreflight). */
@Controller('v1/feed')
export class FeedPreflightController {
  constructor(private readonly browsers: BrowserAuthenticator) {}

  @Options('notifications')
  list(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, FEED_CORS_METHODS);
  }

  @Options('notifications_count')
  counts(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, FEED_CORS_METHODS);
  }

  @Options('notifications/:n_id')
  item(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, FEED_CORS_METHODS);
  }

  @Options('notifications/:n_id/:mark')
  mark(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, FEED_CORS_METHODS);
  }

  @Options('bulk/notifications/seen')
  bulkSeen(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, FEED_CORS_METHODS);
  }

  @Options('mark_all_read')
  markAllRead(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, FEED_CORS_METHODS);
  }

  @Options('reset_bell_count')
  resetBellCount(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, FEED_CORS_METHODS);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { AuthenticatedWorkspace, CurrentWorkspace, RequestBodySchema, ValidBody, WorkspaceAuthGuard } from '@herald/runtime';
import { parseCursorQuery } from '../http/cursor-page';
import { SubscriptionRepository } from './subscription.repository';
import { SUBSCRIPTION_BODIES, SubscriptionAddSchema, SubscriptionRemove } from './request-bodies';
import { subscribeRequest, unsubscribeSubjects } from './subscription-request';

/** Subscriptions to an object (reference `/v1/object/{object_type}/{id}/subscription/`) and what an object is subscribed to. */
@Controller('v1/object/:object_type/:id')
@UseGuards(WorkspaceAuthGuard)
export class ObjectSubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionRepository) {}

  /**
   * The reference answers 200 with `{results: [...]}`, one entry per subscriber of the
   * call. The body is validated here, not by a pipe, so that a subscriber naming this
   * object is refused in the same 400 as the schema's errors.
   */
  @Post('subscription')
  @HttpCode(200)
  @RequestBodySchema(SubscriptionAddSchema)
  async subscribe(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('object_type') type: string, @Param('id') id: string, @Body() body: unknown): Promise<unknown> {
    const request = subscribeRequest(body, { object_type: type, id });
    if (!request.ok) throw HeraldError.validation(request.errors);
    return { results: await this.subscriptions.subscribe(ws, { object_type: type, id }, request.value) };
  }

  @Get('subscription')
  list(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('object_type') type: string, @Param('id') id: string, @Query() query: Record<string, unknown>): Promise<unknown> {
    return this.subscriptions.subscribers(ws, { object_type: type, id }, parseCursorQuery(query));
  }

  /** 204 with no body; the subscribers come in the body or as the reference's comma-separated `recipients` query. */
  @Delete('subscription')
  @HttpCode(204)
  async unsubscribe(
    @CurrentWorkspace() ws: AuthenticatedWorkspace,
    @Param('object_type') type: string,
    @Param('id') id: string,
    @Query('recipients') recipients: unknown,
    @ValidBody(SUBSCRIPTION_BODIES.remove) body: SubscriptionRemove,
  ): Promise<void> {
    const subjects = unsubscribeSubjects(body, recipients);
    if (!subjects.ok) throw HeraldError.validation(subjects.errors);
    await this.subscriptions.unsubscribe(ws, { object_type: type, id }, subjects.value);
  }

  @Get('subscribed_to/object')
  subscribedTo(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('object_type') type: string, @Param('id') id: string, @Query() query: Record<string, unknown>): Promise<unknown> {
    return this.subscriptions.subscribedTo(ws, { type: 'object', object_type: type, id }, parseCursorQuery(query));
  }
}

/** What a user is subscribed to (reference `/v1/user/{distinct_id}/subscribed_to/object/`). */
@Controller('v1/user/:distinct_id/subscribed_to/object')
@UseGuards(WorkspaceAuthGuard)
export class UserSubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionRepository) {}

  @Get()
  subscribedTo(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @Query() query: Record<string, unknown>): Promise<unknown> {
    return this.subscriptions.subscribedTo(ws, { type: 'user', distinct_id: distinctId }, parseCursorQuery(query));
  }
}

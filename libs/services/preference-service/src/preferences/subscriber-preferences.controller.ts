import { Controller, Get, Headers, HttpCode, Options, Param, Patch, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AudienceSubject } from '@herald/contracts';
import { AuthenticatedWorkspace, BrowserAuthenticator, CurrentWorkspace, SuprSendClientErrorFilter, ValidBody } from '@herald/runtime';
import { localeQuery } from '../categories/category-texts';
import { parseOffsetQuery } from '../http/offset-page';
import { tenantQuery } from '../http/request';
import { Preferences } from './preferences';
import { CategoryPreferenceUpdate, ChannelPreferencesUpdate, PREFERENCE_BODIES, categoryChoiceOf } from './request-bodies';
import { UserPreferencesAuthGuard } from './user-preferences-auth.guard';

const SUBSCRIBER_CORS_METHODS = 'GET, PATCH, OPTIONS';

/**
 * A user's preferences where SuprSend's web SDK 4.x reads and writes them
 * (`/v2/subscriber/{distinct_id}/…`): the same operations, store and answers as
 * `/v1/user/{distinct_id}/preference/…`, with the same guard (a browser reaches its token's
 * user alone, in its token's tenant), and errors in the SDK's shape. The SDK's display
 * parameters (`show_opt_out_channels`, `tags`) do not change what Herald answers.
 */
@Controller('v2/subscriber/:distinct_id')
@UseGuards(UserPreferencesAuthGuard)
@UseFilters(SuprSendClientErrorFilter)
export class SubscriberPreferencesController {
  constructor(private readonly preferences: Preferences) {}

  @Get('full_preference')
  full(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @Query('tenant_id') tenant: unknown, @Query('locale') locale: unknown): Promise<unknown> {
    return this.preferences.full(ws, user(distinctId), tenantQuery(tenant), localeQuery(locale));
  }

  @Get('category')
  categories(
    @CurrentWorkspace() ws: AuthenticatedWorkspace,
    @Param('distinct_id') distinctId: string,
    @Query('tenant_id') tenant: unknown,
    @Query() query: Record<string, unknown>,
  ): Promise<unknown> {
    return this.preferences.allCategories(ws, user(distinctId), tenantQuery(tenant), parseOffsetQuery(query), localeQuery(query.locale));
  }

  @Get('category/:category_slug')
  category(
    @CurrentWorkspace() ws: AuthenticatedWorkspace,
    @Param('distinct_id') distinctId: string,
    @Param('category_slug') slug: string,
    @Query('tenant_id') tenant: unknown,
    @Query('locale') locale: unknown,
  ): Promise<unknown> {
    return this.preferences.category(ws, user(distinctId), tenantQuery(tenant), slug, localeQuery(locale));
  }

  /** `{preference, opt_out_channels}`; answers the category's record, which the SDK merges into what it shows. */
  @Patch('category/:category_slug')
  @HttpCode(200)
  updateCategory(
    @CurrentWorkspace() ws: AuthenticatedWorkspace,
    @Param('distinct_id') distinctId: string,
    @Param('category_slug') slug: string,
    @Query('tenant_id') tenant: unknown,
    @ValidBody(PREFERENCE_BODIES.categoryUpdate) body: CategoryPreferenceUpdate,
  ): Promise<unknown> {
    return this.preferences.updateCategory(ws, user(distinctId), tenantQuery(tenant), slug, categoryChoiceOf(body));
  }

  @Get('channel_preference')
  channels(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @Query('tenant_id') tenant: unknown): Promise<unknown> {
    return this.preferences.channels(ws, user(distinctId), tenantQuery(tenant));
  }

  /** `{channel_preferences: [{channel, is_restricted}]}`. */
  @Patch('channel_preference')
  @HttpCode(200)
  updateChannels(
    @CurrentWorkspace() ws: AuthenticatedWorkspace,
    @Param('distinct_id') distinctId: string,
    @Query('tenant_id') tenant: unknown,
    @ValidBody(PREFERENCE_BODIES.channelsUpdate) body: ChannelPreferencesUpdate,
  ): Promise<unknown> {
    return this.preferences.updateChannels(ws, user(distinctId), tenantQuery(tenant), body.channel_preferences);
  }
}

/** CORS preflights of the subscriber preference routes, answered for the origins public keys allow. */
@Controller('v2/subscriber/:distinct_id')
export class SubscriberPreferencesPreflightController {
  constructor(private readonly browsers: BrowserAuthenticator) {}

  @Options('full_preference')
  full(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, SUBSCRIBER_CORS_METHODS);
  }

  @Options('category')
  categories(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, SUBSCRIBER_CORS_METHODS);
  }

  @Options('category/:category_slug')
  category(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, SUBSCRIBER_CORS_METHODS);
  }

  @Options('channel_preference')
  channels(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    return this.browsers.answerPreflight(origin, reply, SUBSCRIBER_CORS_METHODS);
  }
}

const user = (distinctId: string): AudienceSubject => ({ type: 'user', distinct_id: distinctId });

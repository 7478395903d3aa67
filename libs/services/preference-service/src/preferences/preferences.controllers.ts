import { Controller, Get, HttpCode, Param, Patch, Query, UseGuards } from '@nestjs/common';
import { AudienceSubject } from '@herald/contracts';
import { CurrentWorkspace, ValidBody, WorkspaceAuthGuard } from '@herald/runtime';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { localeQuery } from '../categories/category-texts';
import { parseOffsetQuery } from '../http/offset-page';
import { tenantQuery } from '../http/request';
import { Preferences } from './preferences';
import {
  BulkUserPreferenceReset,
  BulkUserPreferenceUpdate,
  CategoryPreferenceUpdate,
  ChannelPreferencesUpdate,
  FullPreferenceUpdate,
  PREFERENCE_BODIES,
  categoryChoiceOf,
  fullUpdateOf,
} from './request-bodies';
import { UserPreferencesAuthGuard } from './user-preferences-auth.guard';

/** Object preferences: interface 4.1 and 4.2, plus the reference's reads. `tenant_id` selects the tenant scope. */
@Controller('v1/object/:object_type/:id/preference')
@UseGuards(WorkspaceAuthGuard)
export class ObjectPreferencesController {
  constructor(private readonly preferences: Preferences) {}

  /** `locale` (here and on the category reads) translates the section and category texts. */
  @Get()
  full(
    @CurrentWorkspace() ws: AuthenticatedWorkspace,
    @Param('object_type') type: string,
    @Param('id') id: string,
    @Query('tenant_id') tenant: unknown,
    @Query('locale') locale: unknown,
  ): Promise<unknown> {
    return this.preferences.full(ws, object(type, id), tenantQuery(tenant), localeQuery(locale));
  }

  /** Reference `update-object-full-preference`: channel restrictions and category choices at once; answers the full preference. */
  @Patch()
  @HttpCode(200)
  updateFull(
    @CurrentWorkspace() ws: AuthenticatedWorkspace,
    @Param('object_type') type: string,
    @Param('id') id: string,
    @Query('tenant_id') tenant: unknown,
    @ValidBody(PREFERENCE_BODIES.fullUpdate) body: FullPreferenceUpdate,
  ): Promise<unknown> {
    return this.preferences.updateFull(ws, object(type, id), tenantQuery(tenant), fullUpdateOf(body));
  }

  @Get('category')
  categories(
    @CurrentWorkspace() ws: AuthenticatedWorkspace,
    @Param('object_type') type: string,
    @Param('id') id: string,
    @Query('tenant_id') tenant: unknown,
    @Query() query: Record<string, unknown>,
  ): Promise<unknown> {
    return this.preferences.allCategories(ws, object(type, id), tenantQuery(tenant), parseOffsetQuery(query), localeQuery(query.locale));
  }

  @Get('category/:category_slug')
  category(
    @CurrentWorkspace() ws: AuthenticatedWorkspace,
    @Param('object_type') type: string,
    @Param('id') id: string,
    @Param('category_slug') slug: string,
    @Query('tenant_id') tenant: unknown,
    @Query('locale') locale: unknown,
  ): Promise<unknown> {
    return this.preferences.category(ws, object(type, id), tenantQuery(tenant), slug, localeQuery(locale));
  }

  /** Interface 4.1: 202 with the record of 2.6; 404 (short) naming the missing category. */
  @Patch('category/:category_slug')
  @HttpCode(202)
  updateCategory(
    @CurrentWorkspace() ws: AuthenticatedWorkspace,
    @Param('object_type') type: string,
    @Param('id') id: string,
    @Param('category_slug') slug: string,
    @Query('tenant_id') tenant: unknown,
    @ValidBody(PREFERENCE_BODIES.categoryUpdate) body: CategoryPreferenceUpdate,
  ): Promise<unknown> {
    return this.preferences.updateCategory(ws, object(type, id), tenantQuery(tenant), slug, categoryChoiceOf(body));
  }

  @Get('channel_preference')
  channels(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('object_type') type: string, @Param('id') id: string, @Query('tenant_id') tenant: unknown): Promise<unknown> {
    return this.preferences.channels(ws, object(type, id), tenantQuery(tenant));
  }

  /** Interface 4.2: 202 with every channel's restriction; 404 (short) naming the missing object. */
  @Patch('channel_preference')
  @HttpCode(202)
  updateChannels(
    @CurrentWorkspace() ws: AuthenticatedWorkspace,
    @Param('object_type') type: string,
    @Param('id') id: string,
    @Query('tenant_id') tenant: unknown,
    @ValidBody(PREFERENCE_BODIES.channelsUpdate) body: ChannelPreferencesUpdate,
  ): Promise<unknown> {
    return this.preferences.updateChannels(ws, object(type, id), tenantQuery(tenant), body.channel_preferences);
  }
}

/** User preferences, the same operations under `/v1/user/{distinct_id}/preference/`; a browser may reach its own user's (UserPreferencesAuthGuard). */
@Controller('v1/user/:distinct_id/preference')
@UseGuards(UserPreferencesAuthGuard)
export class UserPreferencesController {
  constructor(private readonly preferences: Preferences) {}

  @Get()
  full(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Param('distinct_id') distinctId: string, @Query('tenant_id') tenant: unknown, @Query('locale') locale: unknown): Promise<unknown> {
    return this.preferences.full(ws, user(distinctId), tenantQuery(tenant), localeQuery(locale));
  }

  @Patch()
  @HttpCode(200)
  updateFull(
    @CurrentWorkspace() ws: AuthenticatedWorkspace,
    @Param('distinct_id') distinctId: string,
    @Query('tenant_id') tenant: unknown,
    @ValidBody(PREFERENCE_BODIES.fullUpdate) body: FullPreferenceUpdate,
  ): Promise<unknown> {
    return this.preferences.updateFull(ws, user(distinctId), tenantQuery(tenant), fullUpdateOf(body));
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

  @Patch('category/:category_slug')
  @HttpCode(202)
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

  @Patch('channel_preference')
  @HttpCode(202)
  updateChannels(
    @CurrentWorkspace() ws: AuthenticatedWorkspace,
    @Param('distinct_id') distinctId: string,
    @Query('tenant_id') tenant: unknown,
    @ValidBody(PREFERENCE_BODIES.channelsUpdate) body: ChannelPreferencesUpdate,
  ): Promise<unknown> {
    return this.preferences.updateChannels(ws, user(distinctId), tenantQuery(tenant), body.channel_preferences);
  }
}

/** Reference bulk user preferences: one update (or reset) for many users, all or nothing. `tenant_id` selects the scope. */
@Controller('v1/bulk/user/preference')
@UseGuards(WorkspaceAuthGuard)
export class BulkUserPreferencesController {
  constructor(private readonly preferences: Preferences) {}

  @Patch()
  @HttpCode(202)
  update(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Query('tenant_id') tenant: unknown, @ValidBody(PREFERENCE_BODIES.bulkUpdate) body: BulkUserPreferenceUpdate): Promise<unknown> {
    return this.preferences.updateUsers(ws, tenantQuery(tenant), body.distinct_ids, fullUpdateOf(body));
  }

  @Patch('reset')
  @HttpCode(202)
  reset(@CurrentWorkspace() ws: AuthenticatedWorkspace, @Query('tenant_id') tenant: unknown, @ValidBody(PREFERENCE_BODIES.bulkReset) body: BulkUserPreferenceReset): Promise<unknown> {
    return this.preferences.resetUsers(ws, tenantQuery(tenant), body.distinct_ids, { channels: body.reset_channel_preferences === true, categories: body.reset_categories === true });
  }
}

const object = (objectType: string, id: string): AudienceSubject => ({ type: 'object', object_type: objectType, id });
const user = (distinctId: string): AudienceSubject => ({ type: 'user', distinct_id: distinctId });

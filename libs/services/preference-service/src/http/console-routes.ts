import { RequestMethod } from '@nestjs/common';

/**
 * The routes the operator console calls with its API key from its own origin (OperatorCors
 * in @herald/runtime): users (list, profile, preferences, lists they are in), objects and
 * their subscriptions, lists and their members, tenants. The inbox is channel-dispatchers'.
 */
export const CONSOLE_ROUTES = [
  'v1/user',
  'v1/user/:distinct_id',
  'v1/user/:distinct_id/preference',
  'v1/user/:distinct_id/preference/category/:category_slug',
  'v1/user/:distinct_id/subscribed_to/list',
  'v1/object/:object_type',
  'v1/object/:object_type/:id',
  'v1/object/:object_type/:id/subscription',
  'v1/subscriber_list',
  'v1/subscriber_list/:list_id',
  'v1/subscriber_list/:list_id/subscriber',
  'v1/subscriber_list/:list_id/subscriber/add',
  'v1/subscriber_list/:list_id/subscriber/remove',
  'v1/tenant',
  'v1/tenant/:tenant_id',
].map((path) => ({ path, method: RequestMethod.ALL }));

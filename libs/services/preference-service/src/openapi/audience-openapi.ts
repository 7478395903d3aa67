/**
 * preference-service's part of `{base_url}/openapi.json`, merged with the other public
 * services' parts by the HTTP application. Written after the SuprSend reference (paths,
 * field names, statuses) and interface 4.1-4.4 and 7; the integration tests check every
 * response they receive against it.
 */
import { TSchema } from '@sinclair/typebox';
import { openApiSchemaOf } from '@herald/contracts';
import { BROWSER_SDK_OPENAPI, PUBLIC_API_SHARED, schemaRequestBody } from '@herald/runtime';
import { audienceSchemas } from '../http/audience-schemas';
import {
  BulkUserPreferenceResetSchema,
  BulkUserPreferenceUpdateSchema,
  CategoryPreferenceUpdateSchema,
  ChannelPreferencesUpdateSchema,
  FullPreferenceUpdateSchema,
} from '../preferences/request-bodies';
import { OneClickUnsubscribeSchema, PreferencePageFormSchema } from '../unsubscribe/form-bodies';
import { ListMembersSchema, ListUpsertSchema } from '../lists/request-bodies';
import { ProfileOperationsSchema, ProfileUpsertSchema } from '../profiles/request-bodies';
import { BulkObjectDeleteSchema, BulkUserDeleteSchema, UserMergeSchema } from '../sdk-compat/request-bodies';
import { SubscriptionAddSchema, SubscriptionRemoveSchema } from '../subscriptions/request-bodies';
import { BrandUpsertSchema, TenantCategoryDefaultUpdateSchema, TenantUpsertSchema } from '../tenants/request-bodies';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema, description: string): Schema => ({ description, content: { 'application/json': { schema } } });
const strings: Schema = { type: 'array', items: { type: 'string' } };
const preference: Schema = { type: 'string', enum: ['opt_in', 'opt_out'] };
const tenantQuery: Schema = { name: 'tenant_id', in: 'query', required: false, schema: { type: 'string' }, description: 'The tenant scope (per-tenant preferences and tenant defaults)' };
const localeQuery: Schema = {
  name: 'locale',
  in: 'query',
  required: false,
  schema: { type: 'string', pattern: '^[a-zA-Z]{2,3}(?:-[a-zA-Z0-9]{2,8}){0,3}$' },
  description:
    'Translates section and category names and descriptions from the workspace\'s category translations, falling back locale-region (es-AR) -> language (es) -> en -> the committed text; an invalid locale is a 400 naming `locale`',
};
const path = (...names: string[]): Schema[] => names.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));

const extended = (status: number, description: string): [string, Schema] => [String(status), json(ref('ErrorResponse'), description)];
const short = (status: number, description: string): [string, Schema] => [String(status), json(ref('ShortError'), description)];
const invalid = extended(400, 'Validation error: every failing field by its path in `detail`');
const unauthenticated = extended(401, 'Missing or invalid API key or signature');
const profileTooLarge = extended(413, 'The changed profile would pass its limits: 1,000 properties, 256 KiB as JSON (more than 1,000 changes in one request is a 400)');
const noContent = (description: string): Schema => ({ description });

const objectOrUserMissing = short(404, 'The user or object does not exist (`object \'<type>/<id>\' not found`)');
const categoryOrSubjectMissing = short(404, "The category (`category '<slug>' not found`) or the user or object does not exist");
const listMissing = extended(404, 'The list does not exist (`not_found`, `NotFound`)');
const tenantOrCategoryMissing = short(404, 'The tenant or the category does not exist');

const offsetParams: Schema[] = [
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 20 } },
  { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
];
const offsetPage = (item: Schema, description: string): Schema =>
  json({ type: 'object', required: ['meta', 'results'], additionalProperties: false, properties: { meta: ref('OffsetMeta'), results: { type: 'array', items: item } } }, description);
const bulkAccepted = json({ type: 'object', required: ['success'], additionalProperties: false, properties: { success: { const: true } } }, 'Every user changed');
const tenantMissing = short(404, "The tenant does not exist (`tenant '<id>' not found`)");

const preferencePaths = (base: string, subjectParams: Schema[], subject: string): Record<string, Record<string, unknown>> => ({
  [`${base}/preference/`]: {
    get: {
      operationId: `get${subject}FullPreference`,
      summary: `Every category's preference of the ${subject.toLowerCase()}, by section, and its channel restrictions`,
      parameters: [...subjectParams, tenantQuery, localeQuery],
      responses: Object.fromEntries([['200', json(ref('FullPreference'), 'The full preference')], invalid, unauthenticated, objectOrUserMissing]),
    },
    patch: {
      operationId: `update${subject}FullPreference`,
      summary: 'Channel restrictions and category choices in one request, all or nothing',
      parameters: [...subjectParams, tenantQuery],
      requestBody: schemaRequestBody(FullPreferenceUpdateSchema),
      responses: Object.fromEntries([['200', json(ref('FullPreference'), 'The full preference after the change')], invalid, unauthenticated, categoryOrSubjectMissing]),
    },
  },
  [`${base}/preference/category/`]: {
    get: {
      operationId: `get${subject}CategoryPreferences`,
      summary: 'Every category visible in the scope, offset-paged',
      parameters: [...subjectParams, tenantQuery, localeQuery, ...offsetParams],
      responses: Object.fromEntries([['200', offsetPage(ref('CategoryPreference'), 'A page of category records')], invalid, unauthenticated, objectOrUserMissing]),
    },
  },
  [`${base}/preference/category/{category_slug}/`]: {
    get: {
      operationId: `get${subject}CategoryPreference`,
      summary: 'One category',
      parameters: [...subjectParams, ...path('category_slug'), tenantQuery, localeQuery],
      responses: Object.fromEntries([['200', json(ref('CategoryPreference'), 'The category record')], invalid, unauthenticated, categoryOrSubjectMissing]),
    },
    patch: {
      operationId: `update${subject}CategoryPreference`,
      summary: 'Update the preference for one category (interface 4.1)',
      parameters: [...subjectParams, ...path('category_slug'), tenantQuery],
      requestBody: schemaRequestBody(CategoryPreferenceUpdateSchema),
      responses: Object.fromEntries([['202', json(ref('CategoryPreference'), 'The updated record (interface 2.6)')], invalid, unauthenticated, categoryOrSubjectMissing]),
    },
  },
  [`${base}/preference/channel_preference/`]: {
    get: {
      operationId: `get${subject}ChannelPreferences`,
      summary: 'Channel restrictions',
      parameters: [...subjectParams, tenantQuery],
      responses: Object.fromEntries([['200', json(ref('ChannelPreferences'), 'Every channel')], invalid, unauthenticated, objectOrUserMissing]),
    },
    patch: {
      operationId: `update${subject}ChannelPreferences`,
      summary: 'Restrict or unrestrict channels (interface 4.2)',
      parameters: [...subjectParams, tenantQuery],
      requestBody: schemaRequestBody(ChannelPreferencesUpdateSchema),
      responses: Object.fromEntries([['202', json(ref('ChannelPreferences'), 'Every channel after the change')], invalid, unauthenticated, objectOrUserMissing]),
    },
  },
});

const objectParams = path('object_type', 'id');
const userParams = path('distinct_id');

/** A user's preferences where SuprSend's web SDK calls them: the same records, for a public key and the user's token; errors in the SDK's shape. */
const sdkError = (status: number, description: string): [string, Schema] => [String(status), json(ref('SdkErrorResponse'), description)];
const sdkRefusals = [
  sdkError(400, 'Validation error: every failing field by its path in `error.message`'),
  sdkError(401, 'Missing or invalid public key or user token'),
  sdkError(403, "Another user than the token's, another tenant than the token's, or an origin the public key does not allow"),
  sdkError(404, 'The user or the category does not exist'),
];
const sdkDisplay: Schema[] = [
  { name: 'show_opt_out_channels', in: 'query', required: false, schema: { type: 'string' }, description: 'Sent by the SDK; does not change the answer' },
  { name: 'tags', in: 'query', required: false, schema: { type: 'string' }, description: 'Sent by the SDK; does not change the answer' },
];
const subscriberPaths = (): Record<string, Record<string, unknown>> => {
  const base = '/v2/subscriber/{distinct_id}';
  const security = BROWSER_SDK_OPENAPI.security;
  return {
    [`${base}/full_preference/`]: {
      get: {
        operationId: 'getSubscriberFullPreference',
        summary: "The signed-in user's full preference (SuprSend's web SDK `getPreferences`)",
        security,
        parameters: [...userParams, tenantQuery, localeQuery, ...sdkDisplay],
        responses: Object.fromEntries([['200', json(ref('FullPreference'), 'The full preference')], ...sdkRefusals]),
      },
    },
    [`${base}/category/`]: {
      get: {
        operationId: 'getSubscriberCategoryPreferences',
        security,
        parameters: [...userParams, tenantQuery, localeQuery, ...offsetParams, ...sdkDisplay],
        responses: Object.fromEntries([['200', offsetPage(ref('CategoryPreference'), 'A page of category records')], ...sdkRefusals]),
      },
    },
    [`${base}/category/{category_slug}/`]: {
      get: {
        operationId: 'getSubscriberCategoryPreference',
        security,
        parameters: [...userParams, ...path('category_slug'), tenantQuery, localeQuery, ...sdkDisplay],
        responses: Object.fromEntries([['200', json(ref('CategoryPreference'), 'The category record')], ...sdkRefusals]),
      },
      patch: {
        operationId: 'updateSubscriberCategoryPreference',
        summary: '`{preference, opt_out_channels}` as the SDK sends it',
        security,
        parameters: [...userParams, ...path('category_slug'), tenantQuery, ...sdkDisplay],
        requestBody: schemaRequestBody(CategoryPreferenceUpdateSchema),
        responses: Object.fromEntries([['200', json(ref('CategoryPreference'), 'The updated record')], ...sdkRefusals]),
      },
    },
    [`${base}/channel_preference/`]: {
      get: {
        operationId: 'getSubscriberChannelPreferences',
        security,
        parameters: [...userParams, tenantQuery],
        responses: Object.fromEntries([['200', json(ref('ChannelPreferences'), 'Every channel')], ...sdkRefusals]),
      },
      patch: {
        operationId: 'updateSubscriberChannelPreferences',
        security,
        parameters: [...userParams, tenantQuery],
        requestBody: schemaRequestBody(ChannelPreferencesUpdateSchema),
        responses: Object.fromEntries([['200', json(ref('ChannelPreferences'), 'Every channel after the change')], ...sdkRefusals]),
      },
    },
  };
};

const listParams = path('list_id');
const versionParams = path('list_id', 'version_id');
const versionMissing = extended(404, 'The list or the version does not exist (`version_id <v> not found for list_id <id>`)');
const cursorParams: Schema[] = [
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 20 } },
  { name: 'before', in: 'query', schema: { type: 'string' }, description: 'The page before this id, in the chosen order' },
  { name: 'after', in: 'query', schema: { type: 'string' }, description: 'The page after this id, in the chosen order' },
  { name: 'sort', in: 'query', schema: { type: 'string', enum: ['id', '-id'], default: '-id' } },
];
const cursorPage = (item: string, description: string): Schema =>
  json({ type: 'object', required: ['meta', 'results'], additionalProperties: false, properties: { meta: ref('CursorMeta'), results: { type: 'array', items: ref(item) } } }, description);
const objectMissing = short(404, "The object does not exist (`object '<type>/<id>' not found`)");
const affected = json({ type: 'object', required: ['success', 'affected_count'], additionalProperties: false, properties: { success: { const: true }, affected_count: { type: 'integer', minimum: 0 } } }, 'How many changed');

/**
 * The List-Unsubscribe link of an email (README, Engagement tracking and unsubscribe), at
 * HERALD_PUBLIC_URL. No credential: the sealed, expiring token names one user of one
 * workspace, the email's category and tenant.
 */
function unsubscribePaths(): Record<string, Record<string, unknown>> {
  const token: Schema = { in: 'path', name: 'token', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' }, description: 'The token of the email\'s List-Unsubscribe link' };
  const text = (description: string): Schema => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });
  const html = (description: string): Schema => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
  // The schema the handler validates the form's fields with, as either form type posts them.
  const form = (schema: TSchema): Schema => ({ required: true, content: { 'application/x-www-form-urlencoded': { schema: openApiSchemaOf(schema) }, 'multipart/form-data': { schema: openApiSchemaOf(schema) } } });
  return {
    '/v1/unsubscribe/{token}': {
      post: {
        operationId: 'oneClickUnsubscribe',
        summary: "RFC 8058 one-click unsubscribe, as a mail client posts it: opts the user out of the email's category (in the trigger's tenant when it named one), announced like any preference change; no cookie or script needed",
        security: [],
        parameters: [token],
        requestBody: form(OneClickUnsubscribeSchema),
        responses: {
          '200': text('Unsubscribed (also when the user had opted out already)'),
          '400': text('Not RFC 8058\'s body, or the category cannot be unsubscribed (any more)'),
          '404': text('A forged link, or a user the workspace no longer has'),
          '410': text('An expired link'),
        },
      },
      get: {
        operationId: 'preferencePage',
        summary: "The hosted preference page: the user's categories as checkboxes, one form; server-rendered HTML, no script, no external asset (Content-Security-Policy default-src 'none')",
        security: [],
        parameters: [token],
        responses: { '200': html('The page'), '404': html('A forged link'), '410': html('An expired link') },
      },
    },
    '/v1/unsubscribe/{token}/preferences': {
      post: {
        operationId: 'savePreferencePage',
        summary: 'The preference page\'s form: each editable category it showed (`shown`) is subscribed when its box was checked (`subscribed`), unsubscribed otherwise; answers the page again',
        security: [],
        parameters: [token],
        requestBody: form(PreferencePageFormSchema),
        responses: { '200': html('Saved; the page with the choices'), '400': html('Not saved (a category that cannot be unsubscribed)'), '404': html('A forged link'), '410': html('An expired link') },
      },
    },
  };
}

export const audienceOpenApi = {
  paths: {
    ...unsubscribePaths(),
    '/v1/object/{object_type}/{id}/': {
      post: {
        operationId: 'upsertObject',
        summary: 'Create or update an object: `$<channel>` keys append channel values, other keys set properties',
        parameters: objectParams,
        requestBody: schemaRequestBody(ProfileUpsertSchema),
        responses: Object.fromEntries([['201', json(ref('Object'), 'The object')], invalid, profileTooLarge, unauthenticated]),
      },
      get: {
        operationId: 'getObject',
        parameters: objectParams,
        responses: Object.fromEntries([['200', json(ref('Object'), 'The object')], unauthenticated, objectOrUserMissing]),
      },
      patch: {
        operationId: 'editObject',
        summary: 'Apply `$set`, `$set_once`, `$unset`, `$append`, `$remove`, `$increment` operations in order',
        parameters: objectParams,
        requestBody: schemaRequestBody(ProfileOperationsSchema),
        responses: Object.fromEntries([['200', json(ref('Object'), 'The object')], invalid, profileTooLarge, unauthenticated, objectOrUserMissing]),
      },
      delete: {
        operationId: 'deleteObject',
        summary: 'Delete an object for good, with its preferences and subscriptions (interface 4.4)',
        parameters: objectParams,
        responses: Object.fromEntries([['204', noContent('Deleted')], unauthenticated, objectOrUserMissing]),
      },
    },
    ...preferencePaths('/v1/object/{object_type}/{id}', objectParams, 'Object'),
    '/v1/user/{distinct_id}/': {
      post: {
        operationId: 'upsertUser',
        parameters: userParams,
        requestBody: schemaRequestBody(ProfileUpsertSchema),
        responses: Object.fromEntries([['201', json(ref('User'), 'The user')], invalid, profileTooLarge, unauthenticated]),
      },
      get: {
        operationId: 'getUser',
        summary: 'The user; with `tenant_id`, its per-tenant profile merged over the global one',
        parameters: [...userParams, tenantQuery],
        responses: Object.fromEntries([['200', json(ref('User'), 'The user')], invalid, unauthenticated, objectOrUserMissing]),
      },
      patch: {
        operationId: 'editUser',
        parameters: userParams,
        requestBody: schemaRequestBody(ProfileOperationsSchema),
        responses: Object.fromEntries([['202', json(ref('User'), 'The user')], invalid, profileTooLarge, unauthenticated, objectOrUserMissing]),
      },
      delete: {
        operationId: 'deleteUser',
        parameters: userParams,
        responses: Object.fromEntries([['204', noContent('Deleted')], unauthenticated, objectOrUserMissing]),
      },
    },
    ...preferencePaths('/v1/user/{distinct_id}', userParams, 'User'),
    ...subscriberPaths(),
    '/v1/subscriber_list/': {
      post: {
        operationId: 'createList',
        requestBody: schemaRequestBody(ListUpsertSchema),
        responses: Object.fromEntries([['201', json(ref('List'), 'The list (created or updated)')], invalid, unauthenticated]),
      },
      get: {
        operationId: 'getLists',
        summary: 'Lists, newest first (also routed without the trailing slash, as the SDK calls it)',
        parameters: offsetParams,
        responses: Object.fromEntries([
          ['200', json({ type: 'object', required: ['meta', 'results'], properties: { meta: ref('OffsetMeta'), results: { type: 'array', items: ref('List') } } }, 'A page of lists')],
          invalid,
          unauthenticated,
        ]),
      },
    },
    '/v1/subscriber_list/{list_id}/': {
      get: { operationId: 'getList', parameters: listParams, responses: Object.fromEntries([['200', json(ref('List'), 'The list')], unauthenticated, listMissing]) },
      delete: {
        operationId: 'deleteListBySdk',
        summary: "suprsend-py-sdk's `subscriber_lists.delete`: as `PATCH .../delete/`",
        parameters: listParams,
        responses: Object.fromEntries([
          ['200', json({ type: 'object', required: ['success'], additionalProperties: false, properties: { success: { const: true } } }, 'Deleted')],
          unauthenticated,
          listMissing,
        ]),
      },
    },
    '/v1/subscriber_list/{list_id}/subscriber/': {
      get: {
        operationId: 'getListSubscribers',
        summary: 'Members, cursor-paged by id (interface 4.3)',
        parameters: [...listParams, ...cursorParams],
        responses: Object.fromEntries([
          [
            '200',
            json(
              { type: 'object', required: ['meta', 'results'], additionalProperties: false, properties: { meta: ref('CursorMeta'), results: { type: 'array', items: ref('ListSubscriber') } } },
              'A page (interface 2.8)',
            ),
          ],
          invalid,
          unauthenticated,
          listMissing,
        ]),
      },
    },
    '/v1/subscriber_list/{list_id}/subscriber/add/': {
      post: { operationId: 'addListSubscribers', parameters: listParams, requestBody: schemaRequestBody(ListMembersSchema), responses: Object.fromEntries([['201', affected], invalid, unauthenticated, listMissing]) },
    },
    '/v1/subscriber_list/{list_id}/subscriber/remove/': {
      post: { operationId: 'removeListSubscribers', parameters: listParams, requestBody: schemaRequestBody(ListMembersSchema), responses: Object.fromEntries([['201', affected], invalid, unauthenticated, listMissing]) },
    },
    '/v1/subscriber_list/{list_id}/delete/': {
      patch: {
        operationId: 'deleteList',
        parameters: listParams,
        responses: Object.fromEntries([
          ['200', json({ type: 'object', required: ['success'], additionalProperties: false, properties: { success: { const: true } } }, 'Deleted')],
          unauthenticated,
          listMissing,
        ]),
      },
    },
    '/v1/subscriber_list/{list_id}/start_sync/': {
      post: {
        operationId: 'startListSync',
        summary: "A new, empty draft version of the list; its members replace the list's when the sync finishes",
        parameters: listParams,
        responses: Object.fromEntries([['201', json(ref('ListVersion'), 'The draft (its members, none yet)')], unauthenticated, listMissing]),
      },
    },
    '/v1/subscriber_list/{list_id}/version/{version_id}/': {
      get: {
        operationId: 'getListVersion',
        parameters: versionParams,
        responses: Object.fromEntries([['200', json(ref('ListVersion'), 'The draft, with its member count')], unauthenticated, versionMissing]),
      },
      delete: {
        operationId: 'deleteListVersionBySdk',
        summary: "suprsend-py-sdk's `subscriber_lists.delete_version`: as `PATCH .../delete/`",
        parameters: versionParams,
        responses: Object.fromEntries([
          ['200', json({ type: 'object', required: ['success'], additionalProperties: false, properties: { success: { const: true } } }, 'The draft is dropped; the list is unchanged')],
          unauthenticated,
          versionMissing,
        ]),
      },
    },
    '/v1/subscriber_list/{list_id}/version/{version_id}/subscriber/add/': {
      post: { operationId: 'addListVersionSubscribers', parameters: versionParams, requestBody: schemaRequestBody(ListMembersSchema), responses: Object.fromEntries([['201', affected], invalid, unauthenticated, versionMissing]) },
    },
    '/v1/subscriber_list/{list_id}/version/{version_id}/subscriber/remove/': {
      post: { operationId: 'removeListVersionSubscribers', parameters: versionParams, requestBody: schemaRequestBody(ListMembersSchema), responses: Object.fromEntries([['201', affected], invalid, unauthenticated, versionMissing]) },
    },
    '/v1/subscriber_list/{list_id}/version/{version_id}/finish_sync/': {
      patch: {
        operationId: 'finishListSync',
        summary: "The draft's members become the list's, in one transaction, and the draft is dropped",
        parameters: versionParams,
        responses: Object.fromEntries([['200', json(ref('ListVersion'), 'The list as it now is (version_id null)')], unauthenticated, versionMissing]),
      },
    },
    '/v1/subscriber_list/{list_id}/version/{version_id}/delete/': {
      patch: {
        operationId: 'deleteListVersion',
        parameters: versionParams,
        responses: Object.fromEntries([
          ['200', json({ type: 'object', required: ['success'], additionalProperties: false, properties: { success: { const: true } } }, 'The draft is dropped; the list is unchanged')],
          unauthenticated,
          versionMissing,
        ]),
      },
    },
    '/v1/user/{distinct_id}/merge/': {
      post: {
        operationId: 'mergeUsers',
        summary: "Merges the user `from_user_id` into this one (this one's properties win; channel values are added), then deletes `from_user_id`",
        parameters: userParams,
        requestBody: schemaRequestBody(UserMergeSchema),
        responses: Object.fromEntries([['201', json(ref('User'), 'This user after the merge')], invalid, unauthenticated, short(404, "Either user does not exist (`from_user_id: [distinct_id: '<id>'] not found`)")]),
      },
    },
    '/v1/user/{distinct_id}/associated_tenant/': {
      get: {
        operationId: 'listUserTenants',
        summary: "The tenants the user has a profile in (suprsend-py-sdk's `users.list_associated_tenants`), each with that profile",
        parameters: [...userParams, ...cursorParams],
        responses: Object.fromEntries([['200', cursorPage('UserInTenant', 'A page of the tenant profiles')], invalid, unauthenticated, objectOrUserMissing]),
      },
    },
    '/v1/user/{distinct_id}/tenant/{tenant_id}/': {
      post: {
        operationId: 'upsertUserInTenant',
        summary:
          "The user's profile in a tenant (`users.upsert_for_tenant`): the upsert body of `POST /v1/user/{distinct_id}/`. A run carrying this tenant_id reads it merged over the user's profile. Makes the user when it does not exist.",
        parameters: path('distinct_id', 'tenant_id'),
        requestBody: schemaRequestBody(ProfileUpsertSchema),
        responses: Object.fromEntries([['201', json(ref('UserInTenant'), "The user's profile in the tenant")], invalid, profileTooLarge, unauthenticated, tenantMissing]),
      },
      get: {
        operationId: 'getUserInTenant',
        summary: "The user's profile in the tenant alone (`users.get_for_tenant`); `GET /v1/user/{distinct_id}/?tenant_id=` shows it merged",
        parameters: path('distinct_id', 'tenant_id'),
        responses: Object.fromEntries([['200', json(ref('UserInTenant'), "The user's profile in the tenant")], unauthenticated, short(404, "The user has no profile in the tenant (`user '<id>' has no profile in tenant '<tenant_id>'`)")]),
      },
      patch: {
        operationId: 'editUserInTenant',
        summary: "The operations of `PATCH /v1/user/{distinct_id}/`, on the user's profile in the tenant (`users.edit(..., tenant_id=)`), made when missing",
        parameters: path('distinct_id', 'tenant_id'),
        requestBody: schemaRequestBody(ProfileOperationsSchema),
        responses: Object.fromEntries([
          ['202', json(ref('UserInTenant'), "The user's profile in the tenant")],
          invalid,
          profileTooLarge,
          unauthenticated,
          short(404, "The user (`user '<id>' not found`) or the tenant (`tenant '<id>' not found`) does not exist"),
        ]),
      },
      delete: {
        operationId: 'unlinkUserFromTenant',
        summary: "Drops the user's profile in the tenant (`users.unlink_tenant`); the user and its preferences in the tenant stay",
        parameters: path('distinct_id', 'tenant_id'),
        responses: Object.fromEntries([['204', noContent('Unlinked')], unauthenticated, short(404, 'The user has no profile in the tenant')]),
      },
    },
    '/v1/user/{distinct_id}/subscribed_to/list/': {
      get: {
        operationId: 'listUserLists',
        summary: 'The lists the user is a member of, newest membership first',
        parameters: [...userParams, ...cursorParams],
        responses: Object.fromEntries([['200', cursorPage('ListMembership', 'A page of lists')], invalid, unauthenticated]),
      },
    },
    '/v1/bulk/user/': {
      delete: {
        operationId: 'bulkDeleteUsers',
        summary: 'Deletes each user as `DELETE /v1/user/{distinct_id}/` does; ids that do not exist are skipped',
        requestBody: schemaRequestBody(BulkUserDeleteSchema),
        responses: Object.fromEntries([['204', noContent('Deleted')], invalid, unauthenticated]),
      },
    },
    '/v1/bulk/object/{object_type}/': {
      delete: {
        operationId: 'bulkDeleteObjects',
        summary: 'Deletes each object of the type as `DELETE /v1/object/{object_type}/{id}/` does; ids that do not exist are skipped',
        parameters: path('object_type'),
        requestBody: schemaRequestBody(BulkObjectDeleteSchema),
        responses: Object.fromEntries([['204', noContent('Deleted')], invalid, unauthenticated]),
      },
    },
    '/v1/object/{object_type}/': {
      get: {
        operationId: 'listObjects',
        summary: 'Objects of one type, cursor-paged by creation order',
        parameters: [...path('object_type'), ...cursorParams],
        responses: Object.fromEntries([['200', cursorPage('Object', 'A page of objects')], invalid, unauthenticated]),
      },
    },
    '/v1/object/{object_type}/{id}/subscription/': {
      post: {
        operationId: 'addObjectSubscriptions',
        summary: 'Subscribe users and child objects to the object; subscribing again replaces the relation properties',
        parameters: objectParams,
        requestBody: schemaRequestBody(SubscriptionAddSchema),
        responses: Object.fromEntries([
          [
            '200',
            json(
              { type: 'object', required: ['results'], additionalProperties: false, properties: { results: { type: 'array', items: ref('ObjectSubscription') } } },
              'The subscriptions of this call',
            ),
          ],
          invalid,
          unauthenticated,
          objectMissing,
        ]),
      },
      get: {
        operationId: 'listObjectSubscriptions',
        summary: 'Users and child objects subscribed to the object, cursor-paged by subscription',
        parameters: [...objectParams, ...cursorParams],
        responses: Object.fromEntries([['200', cursorPage('ObjectSubscription', 'A page of subscriptions')], invalid, unauthenticated, objectMissing]),
      },
      delete: {
        operationId: 'deleteObjectSubscriptions',
        summary: 'Remove subscribers, named in the body or as comma-separated distinct_ids in `recipients`',
        parameters: [...objectParams, { name: 'recipients', in: 'query', required: false, schema: { type: 'string' }, description: 'Comma-separated distinct_ids, when the body names none' }],
        // The body is optional: the `recipients` query may name the subscribers instead.
        requestBody: { ...schemaRequestBody(SubscriptionRemoveSchema), required: false },
        responses: Object.fromEntries([['204', noContent('Removed (naming one that is not subscribed is not an error)')], invalid, unauthenticated, objectMissing]),
      },
    },
    '/v1/object/{object_type}/{id}/subscribed_to/object/': {
      get: {
        operationId: 'listObjectSubscribedTo',
        summary: 'Parent objects this object is subscribed to',
        parameters: [...objectParams, ...cursorParams],
        responses: Object.fromEntries([['200', cursorPage('SubscribedTo', 'A page of subscriptions')], invalid, unauthenticated, objectMissing]),
      },
    },
    '/v1/user/': {
      get: {
        operationId: 'listUsers',
        summary: 'Users, cursor-paged by creation order',
        parameters: cursorParams,
        responses: Object.fromEntries([['200', cursorPage('User', 'A page of users')], invalid, unauthenticated]),
      },
    },
    '/v1/user/{distinct_id}/subscribed_to/object/': {
      get: {
        operationId: 'listUserSubscribedTo',
        summary: 'Objects the user is subscribed to',
        parameters: [...userParams, ...cursorParams],
        responses: Object.fromEntries([['200', cursorPage('SubscribedTo', 'A page of subscriptions')], invalid, unauthenticated, short(404, "The user does not exist (`user '<distinct_id>' not found`)")]),
      },
    },
    '/v1/tenant/': {
      get: {
        operationId: 'listTenants',
        summary: 'Tenants, newest first',
        parameters: offsetParams,
        responses: Object.fromEntries([
          ['200', json({ type: 'object', required: ['meta', 'results'], properties: { meta: ref('OffsetMeta'), results: { type: 'array', items: ref('Tenant') } } }, 'A page of tenants')],
          invalid,
          unauthenticated,
        ]),
      },
    },
    '/v1/tenant/{tenant_id}/': {
      post: {
        operationId: 'upsertTenant',
        parameters: path('tenant_id'),
        requestBody: schemaRequestBody(TenantUpsertSchema),
        responses: Object.fromEntries([['201', json(ref('Tenant'), 'The tenant')], invalid, unauthenticated]),
      },
      get: { operationId: 'getTenant', parameters: path('tenant_id'), responses: Object.fromEntries([['200', json(ref('Tenant'), 'The tenant')], unauthenticated, tenantOrCategoryMissing]) },
      delete: { operationId: 'deleteTenant', parameters: path('tenant_id'), responses: Object.fromEntries([['204', noContent('Deleted')], unauthenticated, tenantOrCategoryMissing]) },
    },
    '/v1/brand/': {
      get: {
        operationId: 'listBrands',
        summary: 'Tenants under their older name (brands), newest first',
        parameters: offsetParams,
        responses: Object.fromEntries([
          ['200', json({ type: 'object', required: ['meta', 'results'], properties: { meta: ref('OffsetMeta'), results: { type: 'array', items: ref('Brand') } } }, 'A page of brands')],
          invalid,
          unauthenticated,
        ]),
      },
    },
    '/v1/brand/{brand_id}/': {
      post: {
        operationId: 'upsertBrand',
        summary: 'Upsert a tenant under its older name: `brand_name` is `tenant_name`',
        parameters: path('brand_id'),
        requestBody: schemaRequestBody(BrandUpsertSchema),
        responses: Object.fromEntries([['201', json(ref('Brand'), 'The brand')], invalid, unauthenticated]),
      },
      get: { operationId: 'getBrand', parameters: path('brand_id'), responses: Object.fromEntries([['200', json(ref('Brand'), 'The brand')], unauthenticated, tenantOrCategoryMissing]) },
      delete: { operationId: 'deleteBrand', parameters: path('brand_id'), responses: Object.fromEntries([['204', noContent('Deleted')], unauthenticated, tenantOrCategoryMissing]) },
    },
    '/v1/bulk/user/preference/': {
      patch: {
        operationId: 'updateUsersPreferences',
        summary: 'The same channel restrictions and category choices for many users, all or nothing',
        parameters: [tenantQuery],
        requestBody: schemaRequestBody(BulkUserPreferenceUpdateSchema),
        responses: Object.fromEntries([['202', bulkAccepted], invalid, unauthenticated, short(404, 'A user, the tenant or a category does not exist')]),
      },
    },
    '/v1/bulk/user/preference/reset/': {
      patch: {
        operationId: 'resetUsersPreferences',
        summary: "Forget many users' channel restrictions and/or category choices in the scope",
        parameters: [tenantQuery],
        requestBody: schemaRequestBody(BulkUserPreferenceResetSchema),
        responses: Object.fromEntries([['202', bulkAccepted], invalid, unauthenticated, short(404, 'A user or the tenant does not exist')]),
      },
    },
    '/v1/tenant/{tenant_id}/category/': {
      get: {
        operationId: 'listTenantCategoryDefaults',
        summary: "Every category's tenant default, offset-paged",
        parameters: [...path('tenant_id'), ...offsetParams],
        responses: Object.fromEntries([['200', offsetPage(ref('TenantCategoryDefault'), 'A page of tenant defaults')], invalid, unauthenticated, tenantMissing]),
      },
    },
    '/v1/tenant/{tenant_id}/preference/': {
      get: {
        operationId: 'getTenantFullPreference',
        summary: "The tenant's defaults by root category and section",
        parameters: path('tenant_id'),
        responses: Object.fromEntries([['200', json(ref('TenantFullPreference'), 'Every category')], invalid, unauthenticated, tenantMissing]),
      },
    },
    '/v1/tenant/{tenant_id}/preference/category/': {
      get: {
        operationId: 'listTenantCategoryPreferences',
        summary: "Every category's tenant default, offset-paged",
        parameters: [...path('tenant_id'), ...offsetParams],
        responses: Object.fromEntries([['200', offsetPage(ref('TenantCategoryDefault'), 'A page of tenant defaults')], invalid, unauthenticated, tenantMissing]),
      },
    },
    '/v1/tenant/{tenant_id}/preference/category/{category}/': {
      get: {
        operationId: 'getTenantCategoryPreference',
        parameters: path('tenant_id', 'category'),
        responses: Object.fromEntries([['200', json(ref('TenantCategoryDefault'), 'The tenant default')], invalid, unauthenticated, tenantOrCategoryMissing]),
      },
      patch: {
        operationId: 'updateTenantCategoryPreference',
        summary: 'The same write as PATCH /v1/tenant/{tenant_id}/category/{category_slug}/, answered 200',
        parameters: path('tenant_id', 'category'),
        requestBody: schemaRequestBody(TenantCategoryDefaultUpdateSchema),
        responses: Object.fromEntries([['200', json(ref('TenantCategoryDefault'), 'The tenant default')], invalid, unauthenticated, tenantOrCategoryMissing]),
      },
    },
    '/v1/tenant/{tenant_id}/category/{category_slug}/': {
      patch: {
        operationId: 'updateTenantCategoryDefault',
        parameters: path('tenant_id', 'category_slug'),
        requestBody: schemaRequestBody(TenantCategoryDefaultUpdateSchema),
        responses: Object.fromEntries([['202', json(ref('TenantCategoryDefault'), 'The tenant default')], invalid, unauthenticated, tenantOrCategoryMissing]),
      },
    },
  } as Record<string, Record<string, unknown>>,
  components: {
    securitySchemes: BROWSER_SDK_OPENAPI.securitySchemes,
    schemas: {
      ...PUBLIC_API_SHARED.schemas,
      ...BROWSER_SDK_OPENAPI.schemas,
      ...audienceSchemas.openApiComponents(),
      ChannelValues: {
        type: 'array',
        items: { type: 'object', required: ['value', 'status', 'perma_status'], properties: { value: {}, status: { type: 'string' }, perma_status: { type: 'string' } } },
      },
      Object: {
        type: 'object',
        required: ['object_type', 'id', 'subscriptions_count', 'properties', 'created_at', 'updated_at'],
        properties: {
          object_type: { type: 'string' },
          id: { type: 'string' },
          subscriptions_count: { type: 'integer' },
          properties: { type: 'object' },
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
        },
        patternProperties: { '^\\$': ref('ChannelValues') },
      },
      User: {
        type: 'object',
        required: ['distinct_id', 'properties', 'created_at', 'updated_at'],
        properties: {
          distinct_id: { type: 'string' },
          properties: { type: 'object' },
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
        },
        patternProperties: { '^\\$': ref('ChannelValues') },
      },
      UserInTenant: {
        type: 'object',
        required: ['distinct_id', 'tenant_id', 'properties', 'created_at', 'updated_at'],
        properties: {
          distinct_id: { type: 'string' },
          tenant_id: { type: 'string' },
          properties: { type: 'object', description: 'The properties set for this tenant alone' },
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
        },
        patternProperties: { '^\\$': ref('ChannelValues') },
      },
      CategoryPreference: {
        type: 'object',
        description: 'Interface 2.6',
        required: ['name', 'category', 'description', 'tags', 'effective_tags', 'original_preference', 'preference', 'is_editable', 'channels', 'digest_schedule_options', 'digest_schedule', 'properties'],
        additionalProperties: false,
        properties: {
          name: { type: 'string' },
          category: { type: 'string' },
          description: { type: 'string' },
          tags: strings,
          effective_tags: strings,
          original_preference: preference,
          preference,
          is_editable: { type: 'boolean' },
          channels: {
            type: 'array',
            items: { type: 'object', required: ['channel', 'preference', 'is_editable'], additionalProperties: false, properties: { channel: { type: 'string' }, preference, is_editable: { type: 'boolean' } } },
          },
          digest_schedule_options: {
            type: 'object',
            required: ['options'],
            properties: {
              options: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['id', 'label', 'frequency', 'interval', 'time', 'weekdays', 'is_default', 'is_user_selected'],
                  properties: {
                    id: { type: 'string' },
                    label: { type: 'string' },
                    frequency: { type: 'string' },
                    interval: { type: 'integer' },
                    time: { type: 'object', required: ['edit_policy', 'default_value', 'value'] },
                    weekdays: { type: 'object', required: ['edit_policy', 'default_value', 'value'] },
                    is_default: { type: 'boolean' },
                    is_user_selected: { type: 'boolean' },
                  },
                },
              },
            },
          },
          digest_schedule: {
            oneOf: [
              { type: 'null' },
              {
                type: 'object',
                required: ['id', 'label', 'frequency', 'interval', 'time', 'weekdays', 'is_default', 'is_user_selected'],
                properties: {
                  id: { type: 'string' },
                  label: { type: 'string' },
                  frequency: { type: 'string' },
                  interval: { type: 'integer' },
                  time: { type: ['string', 'null'] },
                  weekdays: strings,
                  is_default: { type: 'boolean' },
                  is_user_selected: { type: 'boolean' },
                },
              },
            ],
          },
          properties: {
            type: 'array',
            items: {
              type: 'object',
              required: ['key', 'label', 'value_type', 'default_value', 'is_optional', 'edit_policy', 'is_overridden', 'value'],
              properties: { key: { type: 'string' }, label: { type: 'string' }, value_type: { type: 'string' }, is_optional: { type: 'boolean' }, edit_policy: { type: 'string' }, is_overridden: { type: 'boolean' } },
            },
          },
        },
      },
      ChannelPreferences: {
        type: 'object',
        required: ['channel_preferences'],
        additionalProperties: false,
        properties: {
          channel_preferences: {
            type: 'array',
            items: { type: 'object', required: ['channel', 'is_restricted'], additionalProperties: false, properties: { channel: { type: 'string' }, is_restricted: { type: 'boolean' } } },
          },
        },
      },
      FullPreference: {
        type: 'object',
        required: ['sections', 'channel_preferences'],
        properties: {
          sections: {
            type: 'array',
            items: { type: 'object', required: ['name', 'subcategories'], properties: { name: { type: 'string' }, description: { type: ['string', 'null'] }, subcategories: { type: 'array', items: ref('CategoryPreference') } } },
          },
          channel_preferences: { type: 'array', items: { type: 'object', required: ['channel', 'is_restricted'], properties: { channel: { type: 'string' }, is_restricted: { type: 'boolean' } } } },
        },
      },
      List: {
        type: 'object',
        required: ['list_id', 'list_name', 'list_description', 'list_type', 'subscribers_count', 'status', 'created_at', 'updated_at'],
        properties: {
          list_id: { type: 'string' },
          list_name: { type: 'string' },
          list_description: { type: 'string' },
          list_type: { type: 'string', enum: ['static_list', 'query_based'] },
          subscribers_count: { type: 'integer', minimum: 0 },
          source: { type: ['string', 'null'] },
          is_readonly: { type: 'boolean' },
          status: { type: 'string' },
          track_user_entry: { type: 'boolean' },
          track_user_exit: { type: 'boolean' },
          requested_for_delete: { type: 'boolean' },
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
          drafts: { type: ['string', 'null'] },
        },
      },
      ListVersion: {
        description: 'A list as a draft version shows it (start_sync, get_version), or the list after finish_sync',
        allOf: [ref('List'), { type: 'object', required: ['version_id'], properties: { version_id: { type: ['string', 'null'] }, status: { type: 'string', enum: ['draft', 'active'] } } }],
      },
      ListMembership: {
        type: 'object',
        required: ['list', 'created_at'],
        properties: { list: ref('List'), created_at: { type: 'string', format: 'date-time', description: 'When the user joined the list' } },
      },
      ListSubscriber: {
        type: 'object',
        description: 'Interface 2.8',
        required: ['id', 'distinct_id', 'created_at'],
        additionalProperties: false,
        properties: { id: { type: 'string' }, distinct_id: { type: 'string' }, created_at: { type: 'string', format: 'date-time' } },
      },
      ObjectSubscription: {
        type: 'object',
        description: 'A subscription to an object: `user` or `object` names the subscriber, the other is null',
        required: ['properties', 'user', 'object', 'created_at', 'updated_at'],
        additionalProperties: false,
        properties: {
          properties: { type: 'object' },
          user: {
            oneOf: [
              { type: 'null' },
              { type: 'object', required: ['distinct_id', 'updated_at'], additionalProperties: false, properties: { distinct_id: { type: 'string' }, updated_at: { type: 'string', format: 'date-time' } } },
            ],
          },
          object: {
            oneOf: [
              { type: 'null' },
              {
                type: 'object',
                required: ['id', 'object_type', 'subscriptions_count', 'updated_at'],
                additionalProperties: false,
                properties: { id: { type: 'string' }, object_type: { type: 'string' }, subscriptions_count: { type: 'integer', minimum: 0 }, updated_at: { type: 'string', format: 'date-time' } },
              },
            ],
          },
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
        },
      },
      SubscribedTo: {
        type: 'object',
        description: 'An object the user or object is subscribed to, with the relation properties',
        required: ['properties', 'object', 'created_at', 'updated_at'],
        additionalProperties: false,
        properties: {
          properties: { type: 'object' },
          object: {
            type: 'object',
            required: ['id', 'object_type', 'properties', 'subscriptions_count', 'updated_at'],
            additionalProperties: false,
            properties: {
              id: { type: 'string' },
              object_type: { type: 'string' },
              properties: { type: 'object' },
              subscriptions_count: { type: 'integer', minimum: 0 },
              updated_at: { type: 'string', format: 'date-time' },
            },
          },
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
        },
      },
      OffsetMeta: { type: 'object', required: ['count', 'limit', 'offset'], properties: { count: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' } } },
      Tenant: {
        type: 'object',
        required: ['tenant_id', 'tenant_name', 'blocked_channels', 'created_at', 'updated_at'],
        properties: { tenant_id: { type: 'string' }, tenant_name: { type: 'string' }, blocked_channels: strings, created_at: { type: 'string', format: 'date-time' }, updated_at: { type: 'string', format: 'date-time' } },
      },
      Brand: {
        type: 'object',
        description: 'A tenant, under the names of the older brand API',
        required: ['brand_id', 'brand_name', 'blocked_channels', 'created_at', 'updated_at'],
        properties: { brand_id: { type: 'string' }, brand_name: { type: 'string' }, blocked_channels: strings, created_at: { type: 'string', format: 'date-time' }, updated_at: { type: 'string', format: 'date-time' } },
      },
      TenantFullPreference: {
        type: 'object',
        required: ['root_categories'],
        properties: {
          root_categories: {
            type: 'array',
            items: {
              type: 'object',
              required: ['root_category', 'sections'],
              properties: {
                root_category: { type: 'string', enum: ['system', 'transactional', 'promotional'] },
                sections: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['name', 'categories'],
                    properties: { name: { type: 'string' }, description: { type: ['string', 'null'] }, tags: { type: ['array', 'null'], items: { type: 'string' } }, categories: { type: 'array', items: ref('TenantCategoryDefault') } },
                  },
                },
              },
            },
          },
        },
      },
      TenantCategoryDefault: {
        type: 'object',
        required: ['name', 'category', 'root_category', 'default_preference', 'visible_to_subscriber', 'preference', 'mandatory_channels', 'opt_in_channels', 'blocked_channels'],
        properties: {
          name: { type: 'string' },
          category: { type: 'string' },
          description: { type: 'string' },
          root_category: { type: 'string', enum: ['system', 'transactional', 'promotional'] },
          default_preference: { type: 'string', enum: ['opt_in', 'opt_out', 'cant_unsubscribe'] },
          default_mandatory_channels: { type: ['array', 'null'], items: { type: 'string' } },
          default_opt_in_channels: { type: ['array', 'null'], items: { type: 'string' } },
          visible_to_subscriber: { type: 'boolean' },
          preference: { type: 'string', enum: ['opt_in', 'opt_out', 'cant_unsubscribe'] },
          mandatory_channels: { type: ['array', 'null'], items: { type: 'string' } },
          opt_in_channels: { type: ['array', 'null'], items: { type: 'string' } },
          blocked_channels: strings,
        },
      },
    },
  },
};

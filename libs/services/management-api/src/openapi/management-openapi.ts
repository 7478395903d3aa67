/**
 * The OpenAPI description of `{management_url}`, served at `/openapi.json`. Written
 * by hand after the SuprSend reference (paths, field names, status codes), and kept
 * honest by the integration tests: every response they receive is checked against
 * it (`testing/openapi-response-check.ts`), so an undocumented status or field
 * fails a test.
 */
type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
const dateTime: Schema = { type: 'string', format: 'date-time' };
const json = (schema: Schema, description: string): Schema => ({ description, content: { 'application/json': { schema } } });
const error = (description: string): Schema => json(ref('ErrorResponse'), description);
const errors = (...statuses: number[]): Record<string, Schema> =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      error(
        {
          400: 'Validation error: every failing field by its path in `detail`',
          401: 'Missing or invalid service token',
          404: 'Unknown workspace or resource (or one of another account)',
          409: 'Conflict: the slug exists, or the state does not allow this',
        }[status] ?? 'Error',
      ),
    ]),
  );
const workspaceParam: Schema = { in: 'path', name: 'workspace', required: true, schema: { type: 'string' }, description: 'Workspace slug' };
const pathParam = (name: string, description: string): Schema => ({ in: 'path', name, required: true, schema: { type: 'string' }, description });
const query = (name: string, schema: Schema, description: string): Schema => ({ in: 'query', name, required: false, schema, description });
const paging = [
  query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 20 }, 'Page size'),
  query('offset', { type: 'integer', minimum: 0, default: 0 }, 'Results to skip'),
];
const offsetList = (item: Schema): Schema => ({
  type: 'object',
  required: ['meta', 'results'],
  properties: {
    meta: {
      type: 'object',
      required: ['count', 'limit', 'offset'],
      properties: { count: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' } },
    },
    results: { type: 'array', items: item },
  },
});
const body = (schema: Schema): Schema => ({ required: true, content: { 'application/json': { schema } } });
const security = [{ ServiceTokenAuth: [] }];
const modeQuery = query('mode', { type: 'string', enum: ['draft', 'live'], default: 'draft' }, 'Which version');

const actor = nullable({ type: 'object', properties: { name: { type: 'string' }, email: nullable({ type: 'string' }) } });

export const managementOpenApi = {
  openapi: '3.1.0',
  info: {
    title: 'Herald management API',
    version: '1.2.2',
    description:
      'Workspaces, workspace keys, API keys, preference categories and workflows of an account. Compatible with the SuprSend management API. Authenticate with `Authorization: ServiceToken <token>`.',
  },
  servers: [{ url: 'http://127.0.0.1:3001' }],
  security,
  components: {
    securitySchemes: { ServiceTokenAuth: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`ServiceToken <token>`' } },
    schemas: {
      ErrorResponse: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'integer' },
          error_code: { type: 'string' },
          type: { type: 'string' },
          message: { type: 'string' },
          detail: { type: 'string' },
        },
      },
      Workspace: {
        type: 'object',
        required: ['uid', 'slug', 'data_center', 'is_expired', 'has_limit_reached', 'name', 'description', 'mode'],
        additionalProperties: false,
        properties: {
          uid: { type: 'string' },
          slug: { type: 'string' },
          data_center: { type: 'object' },
          is_expired: { type: 'boolean' },
          has_limit_reached: { type: 'boolean' },
          name: { type: 'string' },
          description: { type: 'string' },
          mode: { type: 'string' },
        },
      },
      WorkspaceCreate: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 64 },
          slug: { type: 'string', pattern: '^[a-z0-9-_]{1,64}$' },
          description: { type: 'string', maxLength: 500 },
          mode: { type: 'string', enum: ['sandbox', 'production'] },
        },
      },
      WorkspaceKey: {
        type: 'object',
        required: ['id', 'name', 'key', 'secret', 'is_default', 'is_active', 'is_deleted', 'allowed_domains', 'created_at'],
        additionalProperties: false,
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          key: { type: 'string' },
          secret: { type: 'string', description: 'Returned in full on every response, as the interface requires; stored sealed.' },
          is_default: { type: 'boolean' },
          is_active: { type: 'boolean' },
          is_deleted: { type: 'boolean' },
          allowed_domains: { type: 'array', items: { type: 'string' } },
          created_at: dateTime,
          created_by: actor,
          rotated_at: nullable(dateTime),
          rotated_by: actor,
          deleted_at: nullable(dateTime),
          deleted_by: actor,
        },
      },
      WorkspaceKeyCreate: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 64 },
          allowed_domains: { type: 'array', maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 253 } },
        },
      },
      ApiKey: {
        type: 'object',
        required: ['id', 'masked_api_key', 'is_deleted', 'name', 'allowed_domains', 'created_at', 'created_by', 'deleted_at', 'deleted_by'],
        properties: {
          id: { type: 'string' },
          masked_api_key: { type: 'string' },
          is_deleted: { type: 'boolean' },
          name: { type: 'string' },
          allowed_domains: { type: 'array', items: { type: 'string' } },
          created_at: dateTime,
          created_by: actor,
          deleted_at: nullable(dateTime),
          deleted_by: actor,
          api_key: { type: 'string', description: 'Only in the create response.' },
        },
      },
      ApiKeyCreate: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string', minLength: 1, maxLength: 64 }, description: { type: 'string', maxLength: 500 } },
      },
      PreferenceCategories: {
        type: 'object',
        required: ['$schema', 'root_categories', 'version_no', 'status', 'validation_result'],
        properties: {
          $schema: { type: 'string' },
          root_categories: { type: 'array', items: { type: 'object' } },
          version_no: { type: 'integer', minimum: 0 },
          status: { type: 'string', enum: ['draft', 'active'] },
          validation_result: ref('ValidationResult'),
          commit_message: nullable({ type: 'string' }),
          committed_at: nullable(dateTime),
        },
      },
      PreferenceCategoriesBody: {
        type: 'object',
        required: ['root_categories'],
        properties: {
          root_categories: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                root_category: { type: 'string', enum: ['system', 'transactional', 'promotional'] },
                sections: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      name: { type: 'string' },
                      description: { type: 'string' },
                      tags: { type: 'array', items: { type: 'string' } },
                      categories: {
                        type: 'array',
                        items: {
                          type: 'object',
                          properties: {
                            category: { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' },
                            name: { type: 'string' },
                            description: { type: 'string' },
                            default_preference: { type: 'string', enum: ['opt_in', 'opt_out', 'cant_unsubscribe'] },
                            default_mandatory_channels: nullable({ type: 'array', items: { type: 'string' } }),
                            default_opt_in_channels: nullable({ type: 'array', items: { type: 'string' } }),
                            tags: nullable({ type: 'array', items: { type: 'string' } }),
                            digest_schedule_options: nullable({ type: 'object', description: "Herald: schedule options for the category's digests" }),
                            properties: nullable({ type: 'array', description: 'Herald: condition properties users may override' }),
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
      Vendor: {
        type: 'object',
        required: ['id', 'channel', 'vendor', 'is_enabled', 'priority', 'base_url', 'settings', 'credentials', 'has_credentials', 'version', 'created_at', 'updated_at'],
        additionalProperties: false,
        properties: {
          id: { type: 'string' },
          channel: { type: 'string', enum: ['email', 'sms', 'inbox', 'androidpush', 'iospush', 'slack', 'ms_teams', 'webpush', 'whatsapp'] },
          vendor: { type: 'string' },
          is_enabled: { type: 'boolean' },
          priority: { type: 'integer', minimum: 1, maximum: 100, description: 'Lower is tried first when a channel falls back' },
          base_url: nullable({ type: 'string', description: "The vendor API's base URL: the configured one, else the vendor's default" }),
          settings: { type: 'object' },
          credentials: {
            type: 'object',
            description: 'Every credential masked: never a value in full',
            additionalProperties: { type: 'string', pattern: '^([^*]{4}\\*{4}|\\*{8})$' },
          },
          has_credentials: { type: 'boolean' },
          version: { type: 'integer', minimum: 1 },
          created_at: dateTime,
          updated_at: dateTime,
        },
      },
      VendorBody: {
        type: 'object',
        properties: {
          is_enabled: { type: 'boolean', default: true },
          priority: { type: 'integer', minimum: 1, maximum: 100, description: 'Required when the vendor is first configured' },
          base_url: nullable({ type: 'string', format: 'uri' }),
          credentials: { type: 'object', description: "The vendor's credential fields; replaces the stored set when given" },
          settings: { type: 'object', description: 'Non-secret options' },
        },
      },
      ValidationResult: {
        type: 'object',
        required: ['is_valid', 'errors'],
        properties: { is_valid: { type: 'boolean' }, errors: { type: 'array', items: { type: 'string' } } },
      },
      Workflow: {
        type: 'object',
        required: ['$schema', 'slug', 'is_enabled', 'created_at', 'name', 'updated_at', 'status', 'tree', 'validation_result'],
        properties: {
          $schema: { type: 'string' },
          slug: { type: 'string', pattern: '^[a-z0-9-_]+$', minLength: 1, maxLength: 255 },
          is_enabled: { type: 'boolean' },
          created_at: dateTime,
          last_executed_at: nullable(dateTime),
          name: nullable({ type: 'string' }),
          description: nullable({ type: 'string' }),
          updated_at: dateTime,
          commit_message: nullable({ type: 'string' }),
          hash: nullable({ type: 'string' }),
          status: { type: 'string', enum: ['active', 'inactive', 'draft'] },
          category: nullable({ type: 'string' }),
          tags: { type: 'array', items: { type: 'string' } },
          ratelimit: nullable({ type: 'object' }),
          conditions: { type: 'array' },
          trigger_type: nullable({ type: 'string', enum: ['event', 'dynamic', 'api'] }),
          trigger_events: { type: 'array' },
          override_recipients_type: nullable({ type: 'string' }),
          override_recipients_user_expr: nullable({ type: 'string' }),
          override_recipients_single_object_fields_expr: nullable({ type: 'string' }),
          override_actor_user_expr: nullable({ type: 'string' }),
          override_tenant_expr: nullable({ type: 'string' }),
          active_at: nullable(dateTime),
          updated_by: actor,
          tree: { type: 'object' },
          validation_result: ref('ValidationResult'),
          version_no: { type: 'integer', minimum: 1 },
        },
      },
      WorkflowBody: {
        type: 'object',
        description: 'WorkflowCreateUpdate of the reference; the tree holds the nodes of interface 2.3 and the send nodes.',
        properties: {
          name: { type: 'string' },
          description: nullable({ type: 'string' }),
          is_enabled: { type: 'boolean' },
          category: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' } },
          trigger_type: { type: 'string', enum: ['event', 'dynamic', 'api'] },
          trigger_events: { type: 'array', items: { type: 'string' } },
          ratelimit: nullable({ type: 'object' }),
          conditions: nullable({ type: 'array' }),
          tree: { type: 'object', properties: { nodes: { type: 'array', items: { type: 'object' } } } },
        },
      },
      WorkflowVersion: {
        type: 'object',
        required: ['version_no', 'status', 'hash', 'updated_at', 'validation_result'],
        properties: {
          version_no: { type: 'integer' },
          status: { type: 'string', enum: ['draft', 'active', 'archived'] },
          commit_message: nullable({ type: 'string' }),
          hash: { type: 'string' },
          active_at: nullable(dateTime),
          updated_at: dateTime,
          validation_result: ref('ValidationResult'),
        },
      },
    },
  },
  paths: {
    '/v1/workspace/': {
      get: {
        summary: 'List workspaces',
        parameters: paging,
        responses: { 200: json(offsetList(ref('Workspace')), 'The workspaces of the account'), ...errors(400, 401) },
      },
      post: {
        summary: 'Create a workspace',
        requestBody: body(ref('WorkspaceCreate')),
        responses: { 200: json(offsetList(ref('Workspace')), 'Created; the updated list'), ...errors(400, 401, 409) },
      },
    },
    '/v1/{workspace}/ws_key/': {
      get: {
        summary: 'List workspace keys (key and secret in full)',
        parameters: [workspaceParam, ...paging],
        responses: { 200: json(offsetList(ref('WorkspaceKey')), 'Keys'), ...errors(400, 401, 404) },
      },
      post: {
        summary: 'Create a workspace key/secret pair',
        parameters: [workspaceParam],
        requestBody: body(ref('WorkspaceKeyCreate')),
        responses: { 201: json(ref('WorkspaceKey'), 'Created'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/ws_key/{id}/rotate/': {
      patch: {
        summary: 'Rotate the secret of a workspace key',
        parameters: [workspaceParam, pathParam('id', 'Workspace key id')],
        responses: { 200: json(ref('WorkspaceKey'), 'Rotated'), ...errors(401, 404) },
      },
    },
    '/v1/{workspace}/ws_key/{id}/': {
      delete: {
        summary: 'Delete a workspace key',
        parameters: [workspaceParam, pathParam('id', 'Workspace key id')],
        responses: { 204: { description: 'Deleted' }, ...errors(401, 404) },
      },
    },
    '/v1/{workspace}/ws_api_key/': {
      get: {
        summary: 'List API keys (masked)',
        parameters: [workspaceParam, ...paging],
        responses: { 200: json(offsetList(ref('ApiKey')), 'API keys'), ...errors(400, 401, 404) },
      },
      post: {
        summary: 'Create an API key (shown once)',
        parameters: [workspaceParam],
        requestBody: body(ref('ApiKeyCreate')),
        responses: { 201: json(ref('ApiKey'), 'Created, with api_key'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/ws_api_key/{id}/': {
      delete: {
        summary: 'Delete an API key',
        parameters: [workspaceParam, pathParam('id', 'API key id')],
        responses: { 204: { description: 'Deleted' }, ...errors(401, 404) },
      },
    },
    '/v1/{workspace}/vendor/': {
      get: {
        summary: 'List the configured vendors',
        parameters: [workspaceParam, query('channel', { type: 'string' }, 'Only this channel'), ...paging],
        responses: { 200: json(offsetList(ref('Vendor')), 'By channel, then priority'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/vendor/{channel}/{vendor}/': {
      get: {
        summary: 'Get a configured vendor',
        parameters: [workspaceParam, pathParam('channel', 'Channel'), pathParam('vendor', 'Vendor')],
        responses: { 200: json(ref('Vendor'), 'The vendor, credentials masked'), ...errors(401, 404) },
      },
      put: {
        summary: 'Configure a vendor (create or update)',
        parameters: [workspaceParam, pathParam('channel', 'Channel'), pathParam('vendor', 'Vendor')],
        requestBody: body(ref('VendorBody')),
        responses: {
          200: json(ref('Vendor'), 'Updated'),
          201: json(ref('Vendor'), 'Created'),
          ...errors(400, 401, 404, 409),
        },
      },
      delete: {
        summary: 'Remove a vendor',
        parameters: [workspaceParam, pathParam('channel', 'Channel'), pathParam('vendor', 'Vendor')],
        responses: { 204: { description: 'Removed' }, ...errors(401, 404) },
      },
    },
    '/v1/{workspace}/preference_category/': {
      get: {
        summary: 'Get the preference categories (draft or live)',
        parameters: [workspaceParam, modeQuery],
        responses: { 200: json(ref('PreferenceCategories'), 'Categories'), ...errors(400, 401, 404) },
      },
      post: {
        summary: 'Save the draft of the preference categories (and commit it with commit=true)',
        parameters: [
          workspaceParam,
          query('commit', { type: 'boolean' }, 'Commit a valid draft at once'),
          query('commit_message', { type: 'string' }, 'Required with commit=true'),
        ],
        requestBody: body(ref('PreferenceCategoriesBody')),
        responses: { 200: json(ref('PreferenceCategories'), 'The draft, or the live version when committed'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/preference_category/commit/': {
      patch: {
        summary: 'Commit the draft of the preference categories',
        parameters: [workspaceParam, query('commit_message', { type: 'string' }, 'Required')],
        responses: { 200: json(ref('PreferenceCategories'), 'The live version'), ...errors(400, 401, 404, 409) },
      },
    },
    '/v1/{workspace}/workflow/': {
      get: {
        summary: 'List workflows',
        parameters: [workspaceParam, modeQuery, query('slugs', { type: 'string' }, 'Comma-separated slugs'), ...paging],
        responses: { 200: json(offsetList(ref('Workflow')), 'Workflows'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/workflow/{slug}/': {
      get: {
        summary: 'Get a workflow (draft or live)',
        parameters: [workspaceParam, pathParam('slug', 'Workflow slug'), modeQuery],
        responses: { 200: json(ref('Workflow'), 'The workflow'), ...errors(400, 401, 404) },
      },
      post: {
        summary: 'Create or update the draft of a workflow (and commit it with commit=true)',
        parameters: [
          workspaceParam,
          pathParam('slug', 'Workflow slug'),
          query('commit', { type: 'boolean' }, 'Commit a valid draft at once'),
          query('commit_message', { type: 'string' }, 'Commit message'),
        ],
        requestBody: body(ref('WorkflowBody')),
        responses: { 201: json(ref('Workflow'), 'The draft with its validation_result, or the live version when committed'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/workflow/{slug}/commit/': {
      patch: {
        summary: 'Commit the draft of a workflow',
        parameters: [workspaceParam, pathParam('slug', 'Workflow slug'), query('commit_message', { type: 'string' }, 'Commit message')],
        responses: { 202: json(ref('Workflow'), 'The live version'), ...errors(400, 401, 404, 409) },
      },
    },
    '/v1/{workspace}/workflow/{slug}/enable/': {
      patch: {
        summary: 'Enable or disable a workflow',
        parameters: [workspaceParam, pathParam('slug', 'Workflow slug')],
        requestBody: body({ type: 'object', required: ['is_enabled'], properties: { is_enabled: { type: 'boolean' } } }),
        responses: { 202: json(ref('Workflow'), 'The workflow'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/workflow/{slug}/versions/': {
      get: {
        summary: 'Version history of a workflow (Herald)',
        parameters: [workspaceParam, pathParam('slug', 'Workflow slug')],
        responses: {
          200: json({ type: 'object', required: ['results'], properties: { results: { type: 'array', items: ref('WorkflowVersion') } } }, 'Newest first'),
          ...errors(400, 401, 404),
        },
      },
    },
  } as Record<string, Record<string, Schema>>,
};

export type OpenApiDocument = typeof managementOpenApi;

/**
 * The OpenAPI description of `{management_url}`, served at `/openapi.json`. Written
 * by hand after the SuprSend reference (paths, field names, status codes), and kept
 * honest by the integration tests: every response they receive is checked against
 * it (`testing/openapi-response-check.ts`), so an undocumented status or field
 * fails a test.
 */
import { NODE_TYPES } from '@herald/workflow';
import { VENDOR_CATALOGUE } from '../vendors/vendor-catalogue';
import { CredentialField } from '../vendors/credential-fields';
import { browserKeysOpenApi } from '../browser-keys/browser-keys-openapi';
import { statusWebhooksOpenApi } from '../status-webhooks/status-webhooks-openapi';
import { suppressionsOpenApi } from '../suppressions/suppressions-openapi';
import { operatorsOpenApi, withRoleRefusals } from '../operators/operators-openapi';
import { schemaRequestBody } from '@herald/runtime';
import { Schema, dateTime, errorResponses, json, nullable, offsetList, optionalSchemaRequestBody, pathParam, paging, query, ref, workspaceParam } from './openapi-parts';
import { managementSchemas } from './management-schemas';
import { WorkspaceCreateSchema } from '../workspaces/request-bodies';
import { WorkspaceKeyCreateSchema } from '../workspace-keys/request-bodies';
import { ApiKeyCreateSchema } from '../api-keys/request-bodies';
import { VendorBodySchema, VendorTestBodySchema } from '../vendors/request-bodies';
import { CommitBodySchema } from '../http/commit-message';
import { EventBodySchema, EventChangeSchema } from '../events/request-bodies';
import { CategoryTranslationSchema, PreferenceCategoriesBodySchema } from '../preference-categories/request-bodies';
import { ReplayBodySchema } from '../replays/request-bodies';
import { SchemaBodySchema } from '../schemas/request-bodies';
import {
  DiscardVariantBodySchema,
  DraftPreviewBodySchema,
  MockDataBodySchema,
  PreviewBodySchema,
  TemplateBodySchema,
  TemplateCommitBodySchema,
  VariantBodySchema,
  VendorApprovalBodySchema,
} from '../templates/request-bodies';
import { TranslationBodySchema } from '../translations/request-bodies';
import { WorkflowBodySchema, WorkflowEnableBodySchema } from '../workflows/request-bodies';


/**
 * One schema per vendor (`channel/vendor` as its title), from the catalogue the API
 * validates with: what `credentials` of a vendor's PUT body holds (`VendorBody`), which
 * the path's vendor decides. A component of its own, for readers and the console's vendor
 * forms: the body's schema cannot hold it, as the store checks the fields (vendor-change.ts).
 */
const vendorCredentials: Schema = {
  type: 'object',
  description: "The credential fields of each vendor (the path names the vendor; docs/reference.md has an example of each); on an update, a field given replaces its stored value, a field left out keeps it, null removes an optional one",
  anyOf: VENDOR_CATALOGUE.map((spec) => ({
    title: `${spec.channel}/${spec.vendor}`,
    type: 'object',
    additionalProperties: false,
    required: Object.entries(spec.credentials).filter(([, field]) => !field.optional).map(([name]) => name),
    properties: Object.fromEntries(Object.entries(spec.credentials).map(([name, field]) => [name, credentialSchema(field)])),
  })),
};

/**
 * One credential field as a form needs it (the console draws its vendor forms from these):
 * `x-herald-shown` says what answers show of it (`full` settings, a 4-character `prefix`
 * of keys, `none` of secrets), `format: password` marks what is never shown.
 */
function credentialSchema(field: CredentialField): Schema {
  switch (field.type) {
    case 'integer':
      return { type: 'integer', minimum: field.min, maximum: field.max, 'x-herald-shown': 'full' };
    case 'boolean':
      return { type: 'boolean', 'x-herald-shown': 'full' };
    case 'string':
      return {
        type: 'string',
        'x-herald-shown': field.shown,
        ...(field.shown === 'none' ? { format: 'password' } : {}),
        ...(field.multiline ? { 'x-herald-multiline': true } : {}),
        ...(field.values ? { enum: [...field.values] } : {}),
      };
  }
}

/** A node of a workflow tree: its type decides the other fields (docs/reference.md lists them, with an example of each). */
const workflowNode: Schema = {
  type: 'object',
  required: ['name', 'node_type'],
  properties: { name: { type: 'string' }, description: { anyOf: [{ type: 'string' }, { type: 'null' }] }, node_type: { type: 'string', enum: [...NODE_TYPES] } },
};

const error = (description: string): Schema => json(ref('ErrorResponse'), description);
const errors = errorResponses(
  {
    400: 'Validation error: every failing field by its path in `detail`',
    401: 'Missing or invalid service token',
    404: 'Unknown workspace or resource (or one of another account)',
    409: 'Conflict: the slug exists, or the state does not allow this',
  },
  'Error',
);
const security = [{ ServiceTokenAuth: [] }, { ConsoleSession: [] }];
const modeQuery = query('mode', { type: 'string', enum: ['draft', 'live'], default: 'draft' }, 'Which version');

const actor = nullable({ type: 'object', properties: { name: { type: 'string' }, email: nullable({ type: 'string' }) } });
const channelName: Schema = { type: 'string', enum: ['email', 'sms', 'inbox', 'androidpush', 'iospush', 'slack', 'ms_teams', 'webpush', 'whatsapp'] };
const sha256: Schema = { type: 'string', pattern: '^[0-9a-f]{64}$' };
const strings: Schema = { type: 'array', items: { type: 'string' } };

const templateParam = pathParam('template_slug', 'Template slug');
const eventParam: Schema = pathParam('url_encoded_event_name', 'Event name, URL-encoded');
const channelParam: Schema = { ...pathParam('channel', 'Channel; another value is a 404'), schema: channelName };
const variantParams = [workspaceParam, templateParam, channelParam, pathParam('variant_id', 'Variant id, unique within the channel')];
const versionParam: Schema = { in: 'path', name: 'version', required: true, schema: { type: 'integer', minimum: 1 }, description: 'Version number (1, 2, ...)' };
const liveModeQuery = query('mode', { type: 'string', enum: ['live'], default: 'live' }, 'Only the live version (the default)');

/** The fields of a variant that lists show; the detail adds content, errors and vendor_approvals. */
const variantFields: Record<string, Schema> = {
  $schema: { type: 'string', const: 'https://schema.suprsend.com/template/v2/variant_schema.json' },
  channel: channelName,
  id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
  tenant_id: nullable({ type: 'string', description: 'null for the default variant' }),
  locale: { type: 'string' },
  conditions: { type: 'array', items: ref('VariantCondition') },
  hash: { ...sha256, description: 'SHA-256 of the canonical JSON of the content' },
  needs_vendor_approval: { type: 'boolean', description: 'Always for whatsapp; by default for sms (DLT); never for other channels' },
  sysgen_template_name: nullable({ type: 'string', pattern: '^[a-z0-9_]{0,512}$', description: 'The name to register with vendors, when it needs vendor approval' }),
  approval_status: { type: 'string', enum: ['auto_approved', 'pending', 'sent_for_approval', 'approved', 'rejected'] },
  discard_comment: nullable({ type: 'string', description: 'Why it was discarded or, when rejected, why the vendor refused it' }),
  approval_at: nullable(dateTime),
  has_error: { type: 'boolean', description: 'The content has problems (see `errors` of the detail); such a draft cannot be committed' },
  seq_no: { type: 'integer', minimum: 1, description: 'Order within channel + tenant + locale' },
  action: nullable({ type: 'string', enum: ['Added', 'Updated', 'Unchanged'], description: 'What the latest commit did with the variant' }),
  created_at: dateTime,
};

export const managementOpenApi = {
  openapi: '3.1.0',
  info: {
    title: 'Herald management API',
    version: '1.2.2',
    description:
      'Workspaces, workspace keys, API keys, preference categories, templates, vendors, workflows, schemas, events and translations of an account. Compatible with the SuprSend management API. Authenticate with `Authorization: ServiceToken <token>`.',
  },
  servers: [{ url: 'http://127.0.0.1:3001' }],
  security,
  components: {
    securitySchemes: {
      ServiceTokenAuth: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`ServiceToken <token>`' },
      ConsoleSession: { type: 'apiKey', in: 'cookie', name: 'herald_session', description: "An operator's console session (POST /v1/operator_session/), with the header X-Herald-Console: 1" },
    },
    schemas: {
      ...managementSchemas.openApiComponents(),
      ...browserKeysOpenApi.schemas,
      ...statusWebhooksOpenApi.schemas,
      ...suppressionsOpenApi.schemas,
      ...operatorsOpenApi.schemas,
      VendorCredentials: vendorCredentials,
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
      ApiKey: {
        type: 'object',
        required: ['id', 'masked_api_key', 'is_deleted', 'name', 'allowed_domains', 'created_at', 'created_by', 'deleted_at', 'deleted_by', 'expires_at', 'read_only'],
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
          expires_at: { ...nullable(dateTime), description: 'When the key stops working (it is then deleted, within a minute); null: until deleted' },
          read_only: { type: 'boolean', description: 'Herald: the key may only read (GET and HEAD on the notification API); anything else is refused with 403' },
          api_key: { type: 'string', description: 'Only in the create response.' },
        },
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
      VendorTestAnswer: {
        type: 'object',
        required: ['ok', 'channel', 'vendor', 'status', 'body', 'error', 'retryable', 'vendor_message_id', 'duration_ms'],
        properties: {
          ok: { type: 'boolean', description: 'The vendor accepted the message' },
          channel: channelName,
          vendor: { type: 'string' },
          status: nullable({ type: 'integer', description: "The vendor's HTTP status or SMTP reply code; null when no answer arrived" }),
          body: nullable({ type: 'string', maxLength: 1000, description: "The start of the vendor's answer (HTTP body, SMTP reply)" }),
          error: nullable({ type: 'string', description: 'Why the send failed, as a delivery would record it' }),
          retryable: nullable({ type: 'boolean', description: 'Whether a delivery would retry this failure' }),
          vendor_message_id: nullable({ type: 'string' }),
          duration_ms: { type: 'integer' },
        },
      },
      Vendor: {
        type: 'object',
        required: ['id', 'channel', 'vendor', 'is_enabled', 'priority', 'base_url', 'settings', 'credentials', 'has_credentials', 'version', 'created_at', 'updated_at'],
        additionalProperties: false,
        properties: {
          id: { type: 'string' },
          channel: channelName,
          vendor: { type: 'string' },
          is_enabled: { type: 'boolean' },
          priority: { type: 'integer', minimum: 1, maximum: 100, description: 'Lower is tried first when a channel falls back' },
          base_url: nullable({ type: 'string', description: "The vendor API's base URL: the configured one, else the vendor's default" }),
          settings: { type: 'object' },
          credentials: {
            type: 'object',
            description: 'Settings (host, port, sender, region) as they are; keys as their first 4 characters and a mask; passwords, tokens and private keys as a mask only',
            additionalProperties: { type: ['string', 'integer', 'boolean'] },
          },
          has_credentials: { type: 'boolean' },
          version: { type: 'integer', minimum: 1 },
          created_at: dateTime,
          updated_at: dateTime,
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
          payload_schema: nullable(ref('PayloadSchemaLink')),
          active_at: nullable(dateTime),
          updated_by: actor,
          tree: { type: 'object', required: ['nodes'], properties: { nodes: { type: 'array', items: workflowNode } } },
          validation_result: ref('ValidationResult'),
          version_no: { type: 'integer', minimum: 1 },
        },
      },
      Schema: {
        type: 'object',
        required: ['slug', 'name', 'description', 'status', 'version_no', 'hash', 'json_schema', 'created_at', 'updated_at', 'committed_at', 'commit_message'],
        properties: {
          slug: { type: 'string', pattern: '^[a-z0-9-_]+$' },
          name: { type: 'string' },
          description: nullable({ type: 'string' }),
          status: { type: 'string', enum: ['draft', 'live'] },
          version_no: { type: 'integer', minimum: 1 },
          hash: sha256,
          json_schema: { type: 'object', description: 'A JSON Schema (draft 2020-12, or draft-07 when its $schema says so)' },
          created_at: dateTime,
          updated_at: dateTime,
          committed_at: nullable(dateTime),
          commit_message: nullable({ type: 'string' }),
        },
      },
      Event: {
        type: 'object',
        required: ['name', 'description', 'payload_schema', 'created_at', '$schema'],
        properties: {
          name: { type: 'string' },
          description: { type: 'string', description: 'Empty when none was given' },
          payload_schema: nullable(ref('PayloadSchemaLink')),
          created_at: { ...dateTime, description: 'When registered, or when the first live workflow triggered by it went live' },
          $schema: { type: 'string', const: 'https://schema.suprsend.com/event/v1/schema.json' },
        },
      },
      TranslationFile: {
        type: 'object',
        required: ['filename', 'locale', 'locale_name', 'namespace', 'action', 'updated_at'],
        properties: {
          filename: { type: 'string', description: '<locale>.json or <namespace>.<locale>.json' },
          locale: { type: 'string', description: "Matched with the recipient's locale, which falls back to its language (fr-CA → fr), then to en" },
          locale_name: { type: 'string' },
          namespace: nullable({ type: 'string', description: 'Keys of a namespaced file are used as {{t "namespace:key"}}' }),
          action: { type: 'string', enum: ['added', 'updated', 'deleted', 'unchanged'], description: 'What it changes from the last commit (or, for a version, from the version before)' },
          updated_at: dateTime,
        },
      },
      TranslationFileWithContent: {
        allOf: [ref('TranslationFile'), { type: 'object', required: ['content'], properties: { content: { type: 'object', additionalProperties: { type: 'string' } } } }],
      },
      ReplaySend: {
        type: 'object',
        required: ['node', 'path', 'channel', 'template', 'at'],
        properties: { node: { type: 'string' }, path: { type: 'string' }, channel: { type: 'string' }, template: { type: 'string' }, at: dateTime },
      },
      ReplayChange: {
        type: 'object',
        required: ['kind'],
        description: 'send_added / send_dropped (`send`), send_moved (`send`, `from`, `by_ms`), branch_changed (`node`, `from`, `to` branches), delay_moved (`node`, `from`, `to` due times), status_changed (`from`, `to`)',
        properties: {
          kind: { type: 'string', enum: ['send_added', 'send_dropped', 'send_moved', 'branch_changed', 'delay_moved', 'status_changed'] },
          send: ref('ReplaySend'),
          node: { type: 'string' },
          from: {},
          to: {},
          by_ms: { type: 'integer' },
        },
      },
      ReplayRunResult: {
        type: 'object',
        required: ['run_id', 'recipient', 'status', 'sends', 'changes', 'notes'],
        properties: {
          run_id: { type: 'string' },
          recipient: nullable({
            type: 'object',
            required: ['$type'],
            properties: { $type: { type: 'string', enum: ['user', 'object'] }, distinct_id: { type: 'string' }, object_type: { type: 'string' }, id: { type: 'string' } },
          }),
          status: {
            type: 'object',
            required: ['before', 'after'],
            description: 'How the run ends under its own definition and under the replayed one (`stopped`: see notes)',
            properties: { before: { type: 'string' }, after: { type: 'string' } },
          },
          sends: { type: 'array', items: ref('ReplaySend'), description: 'What the replayed definition would send: channel, template, time' },
          changes: { type: 'array', items: ref('ReplayChange') },
          notes: {
            type: 'array',
            description: 'no_recorded_response (an HTTP node the run never called: the replay stops there), accumulation_assumed, step_limit',
            items: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' }, node: { type: 'string' }, path: { type: 'string' } } },
          },
        },
      },
      ReplayJob: {
        type: 'object',
        required: ['id', 'workflow_slug', 'source', 'selection', 'status', 'progress', 'summary', 'error', 'created_at', 'updated_at'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          workflow_slug: { type: 'string' },
          source: { type: 'object', description: 'The definition replayed: `{kind: draft|live|version|inline, version_no}`' },
          selection: { type: 'object', required: ['count'], properties: { from: dateTime, to: dateTime, recipients: { type: 'array', items: { type: 'string' } }, count: { type: 'integer' } } },
          status: { type: 'string', enum: ['queued', 'running', 'done', 'failed'] },
          progress: { type: 'object', required: ['done', 'total'], properties: { done: { type: 'integer' }, total: nullable({ type: 'integer' }) } },
          summary: nullable({
            type: 'object',
            description: 'Runs replayed, changed and stopped; sends before and after; changes by kind; sends per channel:template before and after',
            required: ['runs', 'runs_changed', 'runs_stopped', 'sends_before', 'sends_after', 'changes', 'sends_by_channel'],
            properties: {
              runs: { type: 'integer' },
              runs_changed: { type: 'integer' },
              runs_stopped: { type: 'integer' },
              sends_before: { type: 'integer' },
              sends_after: { type: 'integer' },
              changes: { type: 'object', additionalProperties: { type: 'integer' } },
              sends_by_channel: { type: 'object', additionalProperties: { type: 'object', required: ['before', 'after'], properties: { before: { type: 'integer' }, after: { type: 'integer' } } } },
            },
          }),
          error: nullable({ type: 'string' }),
          created_at: dateTime,
          updated_at: dateTime,
          results: { type: 'array', items: ref('ReplayRunResult'), description: 'Every run replayed, once the job is done' },
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
      WorkflowVersionDetail: {
        type: 'object',
        description: 'A version of a workflow with its definition as written (the writable fields of WorkflowBody)',
        required: ['version_no', 'status', 'hash', 'updated_at', 'validation_result', 'definition'],
        properties: {
          version_no: { type: 'integer' },
          status: { type: 'string', enum: ['draft', 'active', 'archived'] },
          commit_message: nullable({ type: 'string' }),
          hash: { type: 'string' },
          active_at: nullable(dateTime),
          updated_at: dateTime,
          validation_result: ref('ValidationResult'),
          definition: ref('WorkflowBody'),
        },
      },
      Template: {
        type: 'object',
        description: 'A template as the requested mode sees it (the list, the detail, the upsert and the commit answer the same view)',
        required: [
          '$schema',
          'slug',
          'created_at',
          'last_triggered_at',
          'name',
          'description',
          'tags',
          'enabled_channels',
          'strict',
          'status',
          'version_no',
          'hash',
          'commit_message',
          'active_at',
          'updated_at',
          'updated_by',
          'channels',
        ],
        additionalProperties: false,
        properties: {
          $schema: { type: 'string', const: 'https://schema.suprsend.com/template/v2/schema.json' },
          slug: { type: 'string', pattern: '^[a-z0-9-_]{1,120}$' },
          created_at: dateTime,
          last_triggered_at: nullable({ ...dateTime, description: 'Management does not see sends: always null' }),
          name: { type: 'string' },
          description: nullable({ type: 'string' }),
          tags: strings,
          enabled_channels: { type: 'array', items: channelName },
          strict: { type: 'boolean', description: "Strict rendering in the mode's version: a delivery whose content uses a variable missing from the data fails (delivery_failure, not retried)" },
          status: { type: 'string', enum: ['draft', 'active'], description: 'active once committed' },
          version_no: nullable({ type: 'integer', minimum: 1 }),
          hash: nullable({ ...sha256, description: "Of the mode's metadata and variants" }),
          commit_message: nullable({ type: 'string' }),
          active_at: nullable(dateTime),
          updated_at: dateTime,
          updated_by: { ...actor, description: 'Service tokens belong to no user: always null' },
          channels: {
            type: 'array',
            description: 'One per enabled channel',
            items: {
              type: 'object',
              required: ['channel', 'is_active', 'variants_count'],
              additionalProperties: false,
              properties: {
                channel: channelName,
                is_active: { type: 'boolean', description: 'Enabled in the live version' },
                variants_count: { type: 'integer', minimum: 0, description: "Variants of the mode's version" },
              },
            },
          },
        },
      },
      ObjectRef: {
        type: 'object',
        required: ['object_type', 'id'],
        properties: { object_type: { type: 'string', minLength: 1 }, id: { type: 'string', minLength: 1 } },
      },
      MockData: {
        type: 'object',
        required: ['data', 'transformed_data'],
        properties: {
          data: {
            type: 'object',
            required: ['payload', 'tenant_id', 'is_batch', 'batch_count', 'recipient_sub_type', 'recipient_object', 'recipient_distinct_id', 'actor_sub_type', 'actor_object', 'actor_distinct_id'],
            properties: {
              payload: { type: 'object' },
              tenant_id: nullable({ type: 'string' }),
              is_batch: { type: 'boolean' },
              batch_count: { type: 'integer' },
              recipient_sub_type: { type: 'string', enum: ['user', 'object'] },
              recipient_object: nullable(ref('ObjectRef')),
              recipient_distinct_id: nullable({ type: 'string' }),
              actor_sub_type: { type: 'string', enum: ['user', 'object'] },
              actor_object: nullable(ref('ObjectRef')),
              actor_distinct_id: nullable({ type: 'string' }),
            },
          },
          transformed_data: {
            type: 'object',
            description: 'What templates render with: the payload at the top, $recipient, $actor, $tenant and $brand, and $batched_events with $batched_events_count for a batch',
          },
        },
      },
      TemplatePreview: {
        type: 'object',
        required: ['template_slug', 'channel', 'variant_id', 'mode', 'locale', 'data', 'rendered', 'missing_variables', 'error'],
        properties: {
          template_slug: { type: 'string' },
          channel: channelName,
          variant_id: { type: 'string' },
          mode: { type: 'string', enum: ['draft', 'live'] },
          locale: { type: 'string', description: 'The locale `{{t}}` keys were looked up for' },
          data: { type: 'object', description: 'What the variant was rendered with' },
          rendered: nullable({ type: 'object', required: ['channel'], properties: { channel: channelName }, description: 'The content as a dispatcher would send it' }),
          missing_variables: { ...strings, description: '`field: path` of each placeholder the data had no value for' },
          error: nullable({ type: 'string', description: 'Why the variant does not render (rendered is then null)' }),
        },
      },
      TemplateDraftPreview: {
        type: 'object',
        required: ['template_slug', 'channel', 'mode', 'locale', 'data', 'rendered', 'missing_variables', 'error', 'errors'],
        properties: {
          template_slug: { type: 'string' },
          channel: channelName,
          mode: { type: 'string', const: 'draft' },
          locale: { type: 'string', description: 'The locale `{{t}}` keys were looked up for' },
          data: { type: 'object', description: 'What the content was rendered with' },
          rendered: nullable({ type: 'object', required: ['channel'], properties: { channel: channelName }, description: 'The content as a dispatcher would send it (MJML compiled to HTML)' }),
          missing_variables: { ...strings, description: '`field: path` of each placeholder the data had no value for' },
          error: nullable({ type: 'string', description: 'Why the content does not render (rendered is then null)' }),
          errors: {
            type: 'object',
            additionalProperties: strings,
            description: "What saving this content would report, by path relative to the content (MJML's own warnings as `mjml`, with their line); the commit refuses a variant with any",
          },
        },
      },
      TemplateVersion: {
        type: 'object',
        required: ['version_no', 'commit_message', 'committed_at', 'hash', 'is_live', 'name', 'enabled_channels', 'variants_count'],
        properties: {
          version_no: { type: 'integer', minimum: 1 },
          commit_message: nullable({ type: 'string' }),
          committed_at: dateTime,
          hash: { type: 'string', description: 'The live hash of the version' },
          is_live: { type: 'boolean', description: 'The version live now' },
          name: { type: 'string' },
          enabled_channels: { type: 'array', items: channelName },
          variants_count: { type: 'integer', minimum: 0 },
        },
      },
      TemplateVersionDetail: {
        allOf: [
          ref('TemplateVersion'),
          {
            type: 'object',
            required: ['description', 'tags', 'strict', 'variants'],
            properties: {
              description: nullable({ type: 'string' }),
              tags: strings,
              strict: { type: 'boolean' },
              variants: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['channel', 'id', 'tenant_id', 'locale', 'conditions', 'content', 'seq_no', 'needs_vendor_approval'],
                  properties: {
                    channel: channelName,
                    id: { type: 'string' },
                    tenant_id: nullable({ type: 'string' }),
                    locale: { type: 'string' },
                    conditions: { type: 'array', items: ref('VariantCondition') },
                    content: { type: 'object', description: "The channel's content fields, as committed" },
                    seq_no: { type: 'integer' },
                    needs_vendor_approval: { type: 'boolean' },
                  },
                },
              },
            },
          },
        ],
      },
      TemplateVariant: {
        type: 'object',
        description: 'A variant as lists show it: without content, errors and vendor_approvals',
        required: Object.keys(variantFields),
        additionalProperties: false,
        properties: variantFields,
      },
      TemplateVariantDetail: {
        type: 'object',
        required: [...Object.keys(variantFields), 'content', 'errors', 'vendor_approvals'],
        additionalProperties: false,
        properties: {
          ...variantFields,
          content: { type: 'object', description: "The channel's content as saved, also when it has errors" },
          errors: {
            type: 'object',
            description: 'Content problems by path relative to the content (`subject`, `data.order_id`); empty when valid',
            additionalProperties: strings,
          },
          vendor_approvals: { type: 'array', items: ref('VendorApproval') },
        },
      },
      VendorApproval: {
        type: 'object',
        required: [
          'vendor_slug',
          'vendor_uid',
          'approval_status',
          'vendor_template_name',
          'vendor_template_id',
          'vendor_locale_code',
          'vendor_template_category',
          'provider_template_id',
          'comment',
          'approval_at',
          'updated_at',
        ],
        additionalProperties: false,
        properties: {
          vendor_slug: { type: 'string' },
          vendor_uid: { type: 'string' },
          approval_status: { type: 'string', enum: ['pending', 'sent_for_approval', 'approved', 'rejected'] },
          vendor_template_name: nullable({ type: 'string' }),
          vendor_template_id: nullable({ type: 'string' }),
          vendor_locale_code: nullable({ type: 'string' }),
          vendor_template_category: nullable({ type: 'string', enum: ['UTILITY', 'MARKETING', 'AUTHENTICATION'] }),
          provider_template_id: nullable({ type: 'string' }),
          comment: nullable({ type: 'string' }),
          approval_at: nullable(dateTime),
          updated_at: dateTime,
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
        requestBody: schemaRequestBody(WorkspaceCreateSchema),
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
        requestBody: schemaRequestBody(WorkspaceKeyCreateSchema),
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
    ...browserKeysOpenApi.paths,
    ...statusWebhooksOpenApi.paths,
    ...suppressionsOpenApi.paths,
    ...operatorsOpenApi.paths,
    '/v1/{workspace}/ws_api_key/': {
      get: {
        summary: 'List API keys (masked)',
        parameters: [workspaceParam, ...paging],
        responses: { 200: json(offsetList(ref('ApiKey')), 'API keys'), ...errors(400, 401, 404) },
      },
      post: {
        summary: 'Create an API key (shown once)',
        parameters: [workspaceParam],
        requestBody: schemaRequestBody(ApiKeyCreateSchema),
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
        responses: { 200: json(ref('Vendor'), 'The vendor, its keys and secrets masked'), ...errors(401, 404) },
      },
      put: {
        summary: 'Configure a vendor (create or update)',
        parameters: [workspaceParam, pathParam('channel', 'Channel'), pathParam('vendor', 'Vendor')],
        requestBody: schemaRequestBody(VendorBodySchema),
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
    '/v1/{workspace}/vendor/{channel}/{vendor}/test/': {
      post: {
        summary: 'Send one test message through the vendor as configured (Herald)',
        description:
          "Through channel-dispatchers' own adapter and outbound address rule (HERALD_OUTBOUND_ALLOW), enabled or not, to the body's `to`; answers what the vendor said, 200 whether it accepted the message or not. 503 when the dispatchers cannot be reached (distributed mode: HERALD_DISPATCHERS_URL).",
        parameters: [workspaceParam, pathParam('channel', 'Channel'), pathParam('vendor', 'Vendor')],
        requestBody: schemaRequestBody(VendorTestBodySchema),
        responses: { 200: json(ref('VendorTestAnswer'), "The vendor's answer"), ...errors(400, 401, 404), 503: error('The dispatchers cannot be reached, or refused the request') },
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
        requestBody: schemaRequestBody(PreferenceCategoriesBodySchema),
        responses: { 200: json(ref('PreferenceCategories'), 'The draft, or the live version when committed'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/preference_category/commit/': {
      patch: {
        summary: 'Commit the draft of the preference categories',
        parameters: [workspaceParam, query('commit_message', { type: 'string' }, 'Required, here or in the body')],
        requestBody: optionalSchemaRequestBody(CommitBodySchema),
        responses: { 200: json(ref('PreferenceCategories'), 'The live version'), ...errors(400, 401, 404, 409) },
      },
    },
    '/v1/{workspace}/preference_category/translation/locale/': {
      get: {
        summary: 'List the locales the preference categories have a translation for',
        parameters: [workspaceParam],
        responses: {
          200: json({ type: 'object', required: ['results'], properties: { results: { type: 'array', items: { type: 'object', required: ['locale'], properties: { locale: { type: 'string' } } } } } }, 'Locales'),
          ...errors(401, 404),
        },
      },
    },
    '/v1/{workspace}/preference_category/translation/content/{locale}/': {
      get: {
        summary: "Get a locale's translation of the preference sections and categories",
        parameters: [workspaceParam, pathParam('locale', 'e.g. es, es-AR')],
        responses: { 200: json(ref('CategoryTranslation'), 'The translation'), ...errors(400, 401, 404) },
      },
      post: {
        summary: "Create or replace a locale's translation of the preference sections and categories",
        parameters: [workspaceParam, pathParam('locale', 'e.g. es, es-AR')],
        requestBody: schemaRequestBody(CategoryTranslationSchema),
        responses: { 200: json(ref('CategoryTranslation'), 'The stored translation'), ...errors(400, 401, 404) },
      },
      delete: {
        summary: "Delete a locale's translation of the preference sections and categories",
        parameters: [workspaceParam, pathParam('locale', 'e.g. es')],
        responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 404) },
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
        requestBody: schemaRequestBody(WorkflowBodySchema),
        responses: { 201: json(ref('Workflow'), 'The draft with its validation_result, or the live version when committed'), ...errors(400, 401, 404) },
      },
      delete: {
        summary: 'Delete a workflow permanently (runs in flight finish on the version they started with)',
        parameters: [workspaceParam, pathParam('slug', 'Workflow slug')],
        responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/workflow/{slug}/commit/': {
      patch: {
        summary: 'Commit the draft of a workflow',
        parameters: [workspaceParam, pathParam('slug', 'Workflow slug'), query('commit_message', { type: 'string' }, 'Commit message (or in the body)')],
        requestBody: optionalSchemaRequestBody(CommitBodySchema),
        responses: { 202: json(ref('Workflow'), 'The live version'), ...errors(400, 401, 404, 409) },
      },
    },
    '/v1/{workspace}/workflow/{slug}/enable/': {
      patch: {
        summary: 'Enable or disable a workflow',
        parameters: [workspaceParam, pathParam('slug', 'Workflow slug')],
        requestBody: schemaRequestBody(WorkflowEnableBodySchema),
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
    '/v1/{workspace}/workflow/{slug}/versions/{version}/': {
      get: {
        summary: "A version of a workflow with its definition, to compare versions (Herald)",
        parameters: [workspaceParam, pathParam('slug', 'Workflow slug'), pathParam('version', 'Version number')],
        responses: { 200: json(ref('WorkflowVersionDetail'), 'The version'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/workflow/{slug}/versions/{version}/rollback/': {
      post: {
        summary: "Make an earlier version live again, as the next version (Herald)",
        description:
          "The version's definition is validated against what is live now, replaces any pending draft and is committed; the versions in between stay in the history. The commit message defaults to `rollback to version N`.",
        parameters: [
          workspaceParam,
          pathParam('slug', 'Workflow slug'),
          pathParam('version', 'Version number'),
          query('commit_message', { type: 'string' }, 'Commit message (or in the body)'),
        ],
        requestBody: optionalSchemaRequestBody(CommitBodySchema),
        responses: { 202: json(ref('Workflow'), 'The new live version'), ...errors(400, 401, 404, 409) },
      },
    },
    '/v1/{workspace}/workflow/{slug}/validate/': {
      post: {
        summary: 'Check a workflow document as saving it as the draft would, saving nothing (Herald)',
        description:
          'Every problem as `path: message` (e.g. `tree.nodes[1].branches[0].nodes[0].template: no template with slug "x"`), jq and Jsonnet parsed by the engines that run them; an unknown category or a payload_schema that is not live, which a save refuses with 400, are listed here too. A body of the wrong shape (a field of the wrong type, a malformed payload_schema) is a 400, as for a save. The workflow need not exist.',
        parameters: [workspaceParam, pathParam('slug', 'Workflow slug')],
        requestBody: schemaRequestBody(WorkflowBodySchema),
        responses: {
          200: json({ type: 'object', required: ['validation_result'], properties: { validation_result: ref('ValidationResult') } }, 'The validation result'),
          ...errors(400, 401, 404),
        },
      },
    },
    '/v1/{workspace}/workflow/{slug}/replay/': {
      post: {
        summary: 'What-if replay of recorded runs against a draft or any version (Herald)',
        description:
          "Replays the recorded runs chosen (newest first) through the given definition with nothing sent, no webhook called (recorded responses are reused) and no timer set; each run is compared with its own definition replayed the same way. Answers 202 with the job; GET .../replay/{id}/ follows it.",
        parameters: [workspaceParam, pathParam('slug', 'Workflow slug')],
        requestBody: optionalSchemaRequestBody(ReplayBodySchema),
        responses: { 202: json(ref('ReplayJob'), 'The job, queued'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/workflow/{slug}/replay/{id}/': {
      get: {
        summary: 'A what-if replay job: progress, and once done every run and the summary (Herald)',
        parameters: [workspaceParam, pathParam('slug', 'Workflow slug'), pathParam('id', 'Replay job id')],
        responses: { 200: json(ref('ReplayJob'), 'The job'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/schema/': {
      get: {
        summary: 'List schemas',
        parameters: [workspaceParam, modeQuery, ...paging],
        responses: { 200: json(offsetList(ref('Schema')), 'Schemas, newest change first'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/schema/{schema_slug}/': {
      get: {
        summary: 'Get a schema (draft or live)',
        parameters: [workspaceParam, pathParam('schema_slug', 'Schema slug'), modeQuery],
        responses: { 200: json(ref('Schema'), 'The schema'), ...errors(400, 401, 404) },
      },
      post: {
        summary: 'Create a schema or replace its draft (and commit it with commit=true)',
        parameters: [
          workspaceParam,
          pathParam('schema_slug', 'Schema slug'),
          query('commit', { type: 'boolean' }, 'Commit the draft at once'),
          query('commit_message', { type: 'string' }, 'Commit message'),
        ],
        requestBody: schemaRequestBody(SchemaBodySchema),
        responses: { 200: json(ref('Schema'), 'The draft, or the live version when committed'), ...errors(400, 401, 404, 409) },
      },
    },
    '/v1/{workspace}/schema/{schema_slug}/commit/': {
      patch: {
        summary: 'Commit the draft of a schema',
        description: 'Announced by definition.changed; answers once ingest checks triggers against it.',
        parameters: [workspaceParam, pathParam('schema_slug', 'Schema slug'), query('commit_message', { type: 'string' }, 'Commit message (or in the body)')],
        requestBody: optionalSchemaRequestBody(CommitBodySchema),
        responses: { 200: json(ref('Schema'), 'The live version'), ...errors(400, 401, 404, 409) },
      },
    },
    '/v1/{workspace}/translation/': {
      get: {
        summary: 'List translation files',
        parameters: [workspaceParam, modeQuery, ...paging],
        responses: { 200: json(offsetList(ref('TranslationFile')), 'Translation files, by file name'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/translation/content/{locale_file}/': {
      get: {
        summary: 'Get a translation file (draft or live)',
        parameters: [workspaceParam, pathParam('locale_file', 'e.g. fr.json, fr-CA.json, auth.en.json'), modeQuery],
        responses: { 200: json(ref('TranslationFileWithContent'), 'The file'), ...errors(400, 401, 404) },
      },
      post: {
        summary: "Create or replace a translation file's draft",
        parameters: [workspaceParam, pathParam('locale_file', 'e.g. fr.json, fr-CA.json, auth.en.json')],
        requestBody: schemaRequestBody(TranslationBodySchema),
        responses: { 201: json(ref('TranslationFileWithContent'), 'The draft'), ...errors(400, 401, 404) },
      },
      delete: {
        summary: 'Mark a translation file for deletion at the next commit',
        parameters: [workspaceParam, pathParam('locale_file', 'e.g. fr.json')],
        responses: { 204: { description: 'Marked (or, never committed, removed)' }, ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/translation/version/{version}/': {
      get: {
        summary: 'The files of a committed version of the translations',
        parameters: [workspaceParam, pathParam('version', 'Version number')],
        responses: { 200: json(offsetList(ref('TranslationFile')), 'Its files'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/translation/version/{version}/rollback/': {
      post: {
        summary: "Make a version's files live again, as the next version (drafts are dropped)",
        parameters: [workspaceParam, pathParam('version', 'Version number')],
        responses: { 200: json(offsetList(ref('TranslationFile')), 'The live files'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/translation/commit/': {
      patch: {
        summary: 'Commit the drafts of every translation file as the next version, announced by definition.changed',
        parameters: [workspaceParam, query('commit_message', { type: 'string' }, 'Commit message (or in the body)')],
        requestBody: optionalSchemaRequestBody(CommitBodySchema),
        responses: { 202: json(offsetList(ref('TranslationFile')), 'The live files'), ...errors(400, 401, 404, 409) },
      },
    },
    '/v1/{workspace}/event/': {
      get: {
        summary: 'List the events seen',
        description: 'The events registered here and the ones a live workflow triggers on (events ingested are not recorded).',
        parameters: [workspaceParam, ...paging],
        responses: { 200: json(offsetList(ref('Event')), 'Events, newest first'), ...errors(400, 401, 404) },
      },
      post: {
        summary: 'Register an event (or update the one of that name)',
        parameters: [workspaceParam],
        requestBody: schemaRequestBody(EventBodySchema),
        responses: { 200: json(ref('Event'), 'The event'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/event/{url_encoded_event_name}/': {
      get: {
        summary: 'Get an event',
        parameters: [workspaceParam, eventParam],
        responses: { 200: json(ref('Event'), 'The event'), ...errors(400, 401, 404) },
      },
      patch: {
        summary: 'Change the description of an event or link a schema to it',
        parameters: [workspaceParam, eventParam],
        requestBody: schemaRequestBody(EventChangeSchema),
        responses: { 200: json(ref('Event'), 'The event'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/event/{url_encoded_event_name}/linked_workflows/': {
      get: {
        summary: 'The live workflows an event triggers',
        parameters: [workspaceParam, eventParam],
        responses: {
          200: json(
            {
              type: 'object',
              required: ['results'],
              properties: {
                results: {
                  type: 'array',
                  items: { type: 'object', required: ['slug', 'usage'], properties: { slug: { type: 'string' }, usage: { type: 'array', items: { type: 'string', enum: ['Trigger Event'] } } } },
                },
              },
            },
            'Workflows by slug',
          ),
          ...errors(401, 404),
        },
      },
    },
    '/v1/{workspace}/event/{url_encoded_event_name}/delink_schema/': {
      patch: {
        summary: 'Remove the schema linked to an event',
        parameters: [workspaceParam, eventParam],
        responses: { 200: json(ref('Event'), 'The event, payload_schema null'), ...errors(400, 401, 404) },
      },
    },
    '/v2/{workspace}/template/': {
      get: {
        summary: 'List templates (newest first)',
        parameters: [
          workspaceParam,
          query('mode', { type: 'string', enum: ['draft', 'live'], default: 'draft' }, 'Draft versions, or only committed templates as their live version'),
          query('q', { type: 'string' }, 'Substring of the name or slug, case-insensitive'),
          ...paging,
        ],
        responses: { 200: json(offsetList(ref('Template')), 'Templates'), ...errors(400, 401, 404) },
      },
    },
    '/v2/{workspace}/template/{template_slug}/': {
      get: {
        summary: 'Get a template (draft or live)',
        parameters: [workspaceParam, templateParam, modeQuery],
        responses: { 200: json(ref('Template'), 'The template'), ...errors(400, 401, 404) },
      },
      post: {
        summary: 'Create a template, or update the metadata of its draft',
        parameters: [workspaceParam, { ...templateParam, schema: { type: 'string', pattern: '^[a-z0-9-_]{1,120}$' } }],
        requestBody: schemaRequestBody(TemplateBodySchema),
        responses: { 200: json(ref('Template'), 'Created or updated; the draft'), ...errors(400, 401, 404) },
      },
    },
    '/v2/{workspace}/template/{template_slug}/commit/': {
      patch: {
        summary: 'Commit the draft of a template: it goes live as the next version, announced by definition.changed',
        description:
          'Refused (400, every problem by path) while a variant has content errors or an enabled channel has no variant. A draft identical to the live version commits nothing.',
        parameters: [workspaceParam, templateParam, query('commit_message', { type: 'string', maxLength: 1000 }, 'Commit message')],
        requestBody: optionalSchemaRequestBody(TemplateCommitBodySchema),
        responses: { 200: json(ref('Template'), 'The live version'), ...errors(400, 401, 404) },
      },
    },
    '/v2/{workspace}/template/{template_slug}/versions/': {
      get: {
        summary: "A template's history (Herald): every committed version, newest first",
        parameters: [workspaceParam, templateParam],
        responses: { 200: json({ type: 'object', required: ['results'], properties: { results: { type: 'array', items: ref('TemplateVersion') } } }, 'Newest first'), ...errors(401, 404) },
      },
    },
    '/v2/{workspace}/template/{template_slug}/versions/{version}/': {
      get: {
        summary: 'One committed version with its metadata and variants (Herald): what a diff between versions compares',
        parameters: [workspaceParam, templateParam, versionParam],
        responses: { 200: json(ref('TemplateVersionDetail'), 'The version'), ...errors(400, 401, 404) },
      },
    },
    '/v2/{workspace}/template/{template_slug}/versions/{version}/restore/': {
      post: {
        summary: 'Make a committed version the draft again (Herald): its metadata and variants replace the draft, to be committed as the next version',
        description: 'Each variant is checked as an edit would be (`has_error` and `errors` on the variant); vendor approvals carry over only where the live variant has the same content.',
        parameters: [workspaceParam, templateParam, versionParam],
        responses: { 200: json(ref('Template'), 'The draft'), ...errors(400, 401, 404) },
      },
    },
    '/v2/{workspace}/template/{template_slug}/variant/': {
      get: {
        summary: 'List the variants of every channel (without content)',
        parameters: [workspaceParam, templateParam, modeQuery, ...paging],
        responses: { 200: json(offsetList(ref('TemplateVariant')), 'By channel, tenant (default first), locale, seq_no'), ...errors(400, 401, 404) },
      },
    },
    '/v2/{workspace}/template/{template_slug}/channel/{channel}/variant/': {
      get: {
        summary: 'List the variants of a channel (without content)',
        parameters: [workspaceParam, templateParam, channelParam, modeQuery, ...paging],
        responses: { 200: json(offsetList(ref('TemplateVariant')), 'By tenant (default first), locale, seq_no'), ...errors(400, 401, 404) },
      },
    },
    '/v2/{workspace}/template/{template_slug}/channel/{channel}/variant/{variant_id}/': {
      get: {
        summary: 'Get a variant with its content (draft or live)',
        parameters: [...variantParams, modeQuery],
        responses: { 200: json(ref('TemplateVariantDetail'), 'The variant'), ...errors(400, 401, 404) },
      },
      post: {
        summary: 'Create or replace the draft of a variant',
        description: "Adding a variant to a channel the template does not list enables that channel. 409 when the given seq_no is another variant's.",
        parameters: variantParams,
        requestBody: schemaRequestBody(VariantBodySchema),
        responses: { 200: json(ref('TemplateVariantDetail'), 'The draft variant'), ...errors(400, 401, 404, 409) },
      },
      delete: {
        summary: 'Remove the draft of a variant (the live one stays until the next commit)',
        parameters: variantParams,
        responses: { 204: { description: 'Removed' }, ...errors(401, 404) },
      },
    },
    '/v2/{workspace}/template/{template_slug}/mock_data/': {
      get: {
        summary: "A template's mock data (sample input for previews) and what it renders as",
        description: 'One per template, not versioned: both modes read the same.',
        parameters: [workspaceParam, templateParam, modeQuery],
        responses: { 200: json(ref('MockData'), 'The mock data; the defaults until first set'), ...errors(400, 401, 404) },
      },
      patch: {
        summary: "Update a template's mock data",
        parameters: [workspaceParam, templateParam],
        requestBody: schemaRequestBody(MockDataBodySchema),
        responses: { 200: json(ref('MockData'), 'The mock data after the update'), ...errors(400, 401, 404) },
      },
    },
    '/v2/{workspace}/template/{template_slug}/channel/{channel}/variant/{variant_id}/preview/': {
      post: {
        summary: 'Render a variant with the mock data, or with given data (Herald)',
        description: "The dispatchers' renderer, so the preview is what would be sent. A variant that does not render is still a 200, with `error`.",
        parameters: [...variantParams, modeQuery],
        requestBody: optionalSchemaRequestBody(PreviewBodySchema),
        responses: { 200: json(ref('TemplatePreview'), 'The rendered variant'), ...errors(400, 401, 404) },
      },
    },
    '/v2/{workspace}/template/{template_slug}/channel/{channel}/preview/': {
      post: {
        summary: 'Render content not saved yet, as its draft variant would render (Herald)',
        description:
          "For an editor's live preview: the dispatchers' renderer (MJML compiled to HTML, cached per source), the template's mock data unless `data` is given, the draft translations. Content with problems still renders as far as it can: `errors` lists them, `error` says why it does not render at all.",
        parameters: [workspaceParam, templateParam, channelParam],
        requestBody: schemaRequestBody(DraftPreviewBodySchema),
        responses: { 200: json(ref('TemplateDraftPreview'), 'The rendered content'), ...errors(400, 401, 404) },
      },
    },
    '/v2/{workspace}/template/{template_slug}/channel/{channel}/variant/{variant_id}/vendor_approval/': {
      patch: {
        summary: "Record a vendor's approval status of a live sms or whatsapp variant",
        description:
          'Per vendor: pending → sent_for_approval → approved | rejected, rejected → sent_for_approval; another transition is a 400. 404 when the variant is not live, 409 when it needs no vendor approval. Announced by definition.changed.',
        parameters: [...variantParams, liveModeQuery],
        requestBody: schemaRequestBody(VendorApprovalBodySchema),
        responses: { 200: json(ref('TemplateVariantDetail'), 'The live variant'), ...errors(400, 401, 404, 409) },
      },
    },
    '/v2/{workspace}/template/{template_slug}/channel/{channel}/variant/{variant_id}/discard/': {
      patch: {
        summary: 'Withdraw a live variant awaiting vendor approval; it returns to the draft',
        description:
          'Only pending, sent_for_approval or rejected variants (409 otherwise, and for variants needing no vendor approval); 404 when the variant is not live. Announced by definition.changed.',
        parameters: [...variantParams, liveModeQuery],
        requestBody: schemaRequestBody(DiscardVariantBodySchema),
        responses: { 200: json(ref('TemplateVariantDetail'), 'The variant as returned to the draft'), ...errors(400, 401, 404, 409) },
      },
    },
  } as Record<string, Record<string, Schema>>,
};

// A role below the route's is refused (403) on every authenticated route.
withRoleRefusals(managementOpenApi.paths as Parameters<typeof withRoleRefusals>[0]);

export type OpenApiDocument = typeof managementOpenApi;

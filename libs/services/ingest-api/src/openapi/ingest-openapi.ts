/**
 * ingest-api's part of `{base_url}/openapi.json` (triggers and events), merged with the
 * other public services' parts by the HTTP application. Written after the SuprSend
 * reference (paths, field names, statuses) and kept honest by the integration tests,
 * which check every response they receive against it. Request bodies and their
 * components are not written here: they are the schemas the handlers validate with
 * (ROUTE_BODIES, `ingestSchemas`; docs/architecture.md, "Contracts").
 */
import { TSchema } from '@sinclair/typebox';
import { openApiSchemaOf } from '@herald/contracts';
import { BROWSER_SDK_OPENAPI, PUBLIC_API_SHARED } from '@herald/runtime';
import { ROUTE_BODIES } from '../http/request-body-schema';
import { ingestSchemas } from '../validation/ingest-checks';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema, description: string): Schema => ({ description, content: { 'application/json': { schema } } });

const errorResponses = (...statuses: number[]): Record<string, Schema> =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      json(
        ref('ErrorResponse'),
        {
          400: 'Validation error: every failing field by its path in `detail`',
          401: 'Missing or invalid API key or signature',
          404: 'Unknown or disabled workflow, or (broadcast, dynamic workflow) a workspace key of another workspace',
          409: 'A request with this $idempotency_key, or the signed request this one replays, is still being processed; retry',
          413: 'Body larger than 800 KB',
          429:
            'Herald is overloaded: its backlog passed HERALD_INGEST_MAX_BACKLOG messages or HERALD_INGEST_MAX_BACKLOG_BYTES bytes (embedded mode), or every database connection stayed busy for as long as a request waits for one; nothing was accepted, retry after the Retry-After header\'s seconds',
          503: 'Herald cannot accept requests now (the broker or the database is unreachable); retry',
        }[status] ?? 'Error',
      ),
    ]),
  );

const bulkResponse: Schema = {
  type: 'object',
  required: ['records', 'status'],
  properties: {
    status: { type: 'string', enum: ['success'] },
    records: {
      type: 'array',
      items: {
        oneOf: [
          {
            type: 'object',
            required: ['status', 'status_code', 'message_id'],
            properties: { status: { const: 'success' }, status_code: { const: 202 }, message_id: { type: 'string', format: 'uuid' } },
          },
          {
            type: 'object',
            required: ['status', 'status_code', 'error'],
            properties: {
              status: { const: 'error' },
              status_code: {
                type: 'integer',
                minimum: 400,
                maximum: 599,
                description: 'What the record alone would have been answered: 429 when Herald is overloaded (retry it later), 503 when the database or broker is unreachable',
              },
              error: { type: 'object', required: ['message', 'type'], properties: { message: { type: 'string' }, type: { type: 'string' } } },
            },
          },
        ],
      },
    },
  },
};

const jsonBody = (schema: TSchema, description: string): Schema => ({ required: true, description, content: { 'application/json': { schema: openApiSchemaOf(schema) } } });

export const ingestOpenApi = {
  security: PUBLIC_API_SHARED.security,
  paths: {
    '/trigger/': {
      post: {
        operationId: 'triggerWorkflow',
        summary: 'Trigger a workflow for up to 100 recipients, or up to 100 triggers at once',
        requestBody: jsonBody(ROUTE_BODIES.trigger, 'One trigger (202) or an array of triggers (bulk, 207). At most 800 KB.'),
        responses: {
          '202': json(
            { type: 'object', required: ['message_id', 'status'], properties: { message_id: { type: 'string', format: 'uuid' }, status: { const: 'success' } } },
            'Accepted: one run per recipient will start. A repeat of an $idempotency_key within 24 hours answers the first message_id. The message_id follows the trigger: GET /v1/workflow_run/?message_id= lists its runs and their messages, GET /v1/message/?message_id= its messages.',
          ),
          '207': json(bulkResponse, 'Bulk: a result per record, in order'),
          ...errorResponses(400, 401, 404, 409, 413, 429, 503),
        },
      },
    },
    '/{workspace_key}/broadcast/': {
      post: {
        operationId: 'triggerBroadcast',
        summary: 'Send a template to every member of a subscriber list',
        parameters: [{ in: 'path', name: 'workspace_key', required: true, schema: { type: 'string' }, description: "One of the authenticated workspace's keys" }],
        requestBody: jsonBody(ROUTE_BODIES.broadcast, 'The broadcast'),
        responses: {
          '202': json({ type: 'object', required: ['message'], properties: { message: { type: 'string' } } }, 'Accepted: each member gets a run'),
          ...errorResponses(400, 401, 404, 409, 413, 429, 503),
        },
      },
    },
    '/{workspace_key}/trigger/': {
      post: {
        operationId: 'triggerDynamicWorkflow',
        summary: "The SDKs' legacy dynamic workflow: send a template to up to 100 users, or up to 100 such triggers at once",
        description:
          'An ad-hoc single-step workflow named `name`: an optional `delay` or `trigger_at`, then `template` on every channel each user can be reached on ' +
          '(`$channels` narrows it), under `notification_category`. `delivery.smart` makes it smart channel routing (the mandatory channels, then the first other channel that can send). ' +
          'Validation, idempotency and fan-out are those of `/trigger/`.',
        parameters: [{ in: 'path', name: 'workspace_key', required: true, schema: { type: 'string' }, description: "One of the authenticated workspace's keys" }],
        requestBody: jsonBody(ROUTE_BODIES.legacyTrigger, 'One trigger (202) or an array of them (bulk, 207). At most 800 KB.'),
        responses: {
          '202': json(
            { type: 'object', required: ['message', 'message_id'], properties: { message: { const: 'Accepted - OK' }, message_id: { type: 'string', format: 'uuid' } } },
            'Accepted: one run per user will start. A repeat of an $idempotency_key within 24 hours answers the first message_id.',
          ),
          '207': json(bulkResponse, 'Bulk: a result per record, in order'),
          ...errorResponses(400, 401, 404, 409, 413, 429, 503),
        },
      },
    },
    '/event/': {
      post: {
        operationId: 'trackEvent',
        summary: 'Track an event (starts workflows triggered by it, resumes wait-until nodes), or save a user (an identity event of the SuprSend SDKs)',
        requestBody: jsonBody(ROUTE_BODIES.event, 'One event (202) or an array of either kind or both (207). A body with `$user_operations` is an identity event.'),
        responses: {
          '202': json({ type: 'object', required: ['message'], properties: { message: { const: 'OK' } } }, 'Accepted'),
          '207': json(bulkResponse, 'Bulk: a result per record, in order'),
          ...errorResponses(400, 401, 409, 413, 429, 503),
        },
      },
    },
    '/v2/event': {
      post: {
        operationId: 'trackSdkEvent',
        summary: "An event of SuprSend's web SDK from a page (identify, track, or a profile edit, for the user token's user), or of a backend SDK (suprsend-py-sdk's track_event)",
        description:
          'From a page (public key and user token): identify is `{event: "$identify", properties: {$identified_id}}`; a profile edit is `{distinct_id, $set | $set_once | $add | $append | $remove | $unset}`; any other body is a track event `{distinct_id, event, properties}`. ' +
          'From a backend (workspace signature or API key): any record `/event/` accepts, for any user. ' +
          'Either way validated and accepted as `/event/` accepts the same record; `$insert_id` is the idempotency key unless `$idempotency_key` is given. CORS for the public key\'s allowed origins, errors included. Also served as `/v2/event/`.',
        security: [...BROWSER_SDK_OPENAPI.security, ...PUBLIC_API_SHARED.security],
        requestBody: jsonBody(ROUTE_BODIES.sdkEvent, 'The SDK body'),
        responses: {
          '202': json(
            { type: 'object', required: ['message'], properties: { message: { const: 'OK' }, message_id: { type: 'string', description: 'Backend calls: the accepted message' } } },
            'Accepted',
          ),
          '400': json(ref('SdkErrorResponse'), 'Validation error: every failing field by its path in `error.message`'),
          '401': json(ref('SdkErrorResponse'), 'Missing or invalid public key, user token, workspace signature or API key'),
          '403': json(ref('SdkErrorResponse'), "Another user than the token's, or an origin the public key does not allow"),
          '409': json(ref('SdkErrorResponse'), 'A call with this $insert_id is still being processed; retry'),
          '413': json(ref('SdkErrorResponse'), 'Body larger than 800 KB'),
          '429': json(ref('SdkErrorResponse'), 'Too many failed attempts, or the backlog is over its bound; see Retry-After'),
          '503': json(ref('SdkErrorResponse'), 'The database is unreachable; retry'),
        },
      },
    },
    '/v2/bulk/event': {
      post: {
        operationId: 'trackSdkEventsInBulk',
        summary: "A backend SDK's bulk of events (suprsend-py-sdk's bulk_events), as `/event/` takes an array",
        description:
          'Up to 400 records (at most 100 track events), each validated and accepted on its own as `/event/` accepts it, `$insert_id` being its idempotency key unless `$idempotency_key` is given. Also served as `/v2/bulk/event/`.',
        security: PUBLIC_API_SHARED.security,
        requestBody: jsonBody(ROUTE_BODIES.sdkBulkEvent, 'The events. At most 800 KB.'),
        responses: {
          '207': json(bulkResponse, 'A result per record, in order'),
          '400': json(ref('SdkErrorResponse'), 'The body is not an array of 1 to 400 records (at most 100 track events); `error.message` names the path'),
          '401': json(ref('SdkErrorResponse'), 'Missing or invalid workspace signature or API key'),
          '409': json(ref('SdkErrorResponse'), 'An identical signed request is still being processed; retry'),
          '413': json(ref('SdkErrorResponse'), 'Body larger than 800 KB'),
          '429': json(ref('SdkErrorResponse'), 'Too many failed attempts, or the backlog is over its bound; see Retry-After'),
          '503': json(ref('SdkErrorResponse'), 'The database is unreachable; retry'),
        },
      },
    },
  },
  components: {
    securitySchemes: { ...PUBLIC_API_SHARED.securitySchemes, ...BROWSER_SDK_OPENAPI.securitySchemes },
    schemas: {
      ...PUBLIC_API_SHARED.schemas,
      ...BROWSER_SDK_OPENAPI.schemas,
      ...ingestSchemas.openApiComponents(),
    },
  },
};

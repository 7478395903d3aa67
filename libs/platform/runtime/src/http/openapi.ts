/**
 * OpenAPI descriptions are written per service, as fragments (their paths and the
 * components those paths use), and served merged per HTTP API at `/openapi.json`:
 * `{base_url}` gathers ingest-api, preference-service and channel-dispatchers (the inbox)
 * in the embedded mode, while a service started on its own serves its own part.
 */
import { TSchema } from '@sinclair/typebox';
import { openApiSchemaOf } from '@herald/contracts';

export interface OpenApiFragment {
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components?: { readonly schemas?: Readonly<Record<string, unknown>>; readonly securitySchemes?: Readonly<Record<string, unknown>> };
  readonly security?: readonly unknown[];
}

export interface OpenApiDocument extends OpenApiFragment {
  readonly openapi: string;
  readonly info: { readonly title: string; readonly version: string; readonly description: string };
}

const INFO: Record<'public' | 'management', OpenApiDocument['info']> = {
  public: {
    title: 'Herald notification API',
    version: '1.2.2',
    description:
      '`{base_url}`: triggers, events, users, objects, lists, preferences and the inbox, in the wire format of the SuprSend API 1.2.2, so its backend SDKs work with only the base URL changed.',
  },
  management: {
    title: 'Herald management API',
    version: '1.2.2',
    description:
      '`{management_url}`: workspaces, workspace keys, API keys, preference categories, templates, vendors and workflows of an account. Authenticate with `Authorization: ServiceToken <token>`.',
  },
};

/** Merges fragments into one document; the same path twice, or one component name with two meanings, is a bug and throws. */
export function mergeOpenApi(api: 'public' | 'management', fragments: readonly OpenApiFragment[]): OpenApiDocument {
  const paths: Record<string, Readonly<Record<string, unknown>>> = {};
  const schemas: Record<string, unknown> = {};
  const securitySchemes: Record<string, unknown> = {};
  const security: unknown[] = [];
  for (const fragment of fragments) {
    for (const [path, item] of Object.entries(fragment.paths)) {
      if (path in paths) throw new Error(`OpenAPI: path ${path} is described by two services`);
      const refused = withInfrastructureRefusals(withHygieneRefusal(item));
      paths[path] = api === 'public' ? withReadOnlyKeyRefusal(refused) : refused;
    }
    mergeNamed(schemas, fragment.components?.schemas ?? {}, 'schema');
    mergeNamed(securitySchemes, fragment.components?.securitySchemes ?? {}, 'security scheme');
    for (const requirement of fragment.security ?? []) {
      if (!security.some((known) => JSON.stringify(known) === JSON.stringify(requirement))) security.push(requirement);
    }
  }
  return { openapi: '3.1.0', info: INFO[api], security, paths, components: { schemas, securitySchemes } };
}

const OPERATION_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * Every operation can answer 400: the input-hygiene rule of the HTTP application refuses
 * a NUL, a lone surrogate, over-deep nesting or too many keys in any path parameter,
 * query or body before the operation runs. Operations that document their own 400 keep it.
 */
function withHygieneRefusal(item: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(item).map(([method, operation]) => {
      const responses = (operation as { responses?: Record<string, unknown> } | null)?.responses;
      if (!OPERATION_METHODS.has(method) || !responses || '400' in responses) return [method, operation];
      const refusal = {
        description: 'A path parameter, query parameter or body field (value or key) holds a NUL or a lone surrogate, or the body is nested deeper than 64 levels or has an object of more than 10,000 keys; `detail` names the field',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
      };
      return [method, { ...(operation as object), responses: { ...responses, 400: refusal } }];
    }),
  );
}

/**
 * Every operation can answer 429 and 503: the HTTP application's exception filter turns a
 * saturated database (no connection free within the pool's wait) into 429 with
 * Retry-After and an unreachable one into 503, whatever the route (`databaseRefusal`).
 * Operations that document their own keep theirs.
 */
function withInfrastructureRefusals(item: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const refusals: Record<string, unknown> = {
    429: {
      description: "Herald is overloaded (every database connection stayed busy for as long as a request waits for one); nothing was done, retry after the Retry-After header's seconds",
      headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait before retrying' } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
    },
    503: {
      description: 'Herald cannot serve requests now (the database or the broker is unreachable); nothing was done, retry',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
    },
  };
  return Object.fromEntries(
    Object.entries(item).map(([method, operation]) => {
      const responses = (operation as { responses?: Record<string, unknown> } | null)?.responses;
      if (!OPERATION_METHODS.has(method) || !responses) return [method, operation];
      const missing = Object.fromEntries(Object.entries(refusals).filter(([status]) => !(status in responses)));
      return [method, { ...(operation as object), responses: { ...responses, ...missing } }];
    }),
  );
}

/**
 * A read-only API key may only GET and HEAD: every other authenticated operation of
 * `{base_url}` (one that can answer 401) can answer 403 for it. Operations that document
 * their own 403 keep theirs.
 */
function withReadOnlyKeyRefusal(item: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(item).map(([method, operation]) => {
      const responses = (operation as { responses?: Record<string, unknown> } | null)?.responses;
      if (!OPERATION_METHODS.has(method) || method === 'get' || method === 'head' || !responses || !('401' in responses) || '403' in responses) return [method, operation];
      const refusal = {
        description: 'The API key is read-only (a console viewer\'s, or one created with `read_only`): it may only GET; nothing was done',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
      };
      return [method, { ...(operation as object), responses: { ...responses, 403: refusal } }];
    }),
  );
}

function mergeNamed(into: Record<string, unknown>, from: Readonly<Record<string, unknown>>, what: string): void {
  for (const [name, value] of Object.entries(from)) {
    if (name in into && JSON.stringify(into[name]) !== JSON.stringify(value)) throw new Error(`OpenAPI: ${what} ${name} is defined twice, differently`);
    into[name] = value;
  }
}

/**
 * What every `{base_url}` fragment shares, defined once so that fragments merge: the
 * error bodies of interface section 7, the two ways to authenticate, and the meta of
 * cursor-paged lists.
 */
export const PUBLIC_API_SHARED = {
  security: [{ BearerAuth: [] }, { WorkspaceSignature: [] }],
  securitySchemes: {
    BearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key of the workspace' },
    WorkspaceSignature: {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description:
        '`<workspace_key>:<base64 HMAC-SHA256(secret, METHOD\\nmd5hex(body)\\nContent-Type\\nDate\\nrequest_uri)>` with a `Date` header at most 15 minutes off, as the SuprSend SDKs sign',
    },
  },
  schemas: {
    ErrorResponse: {
      type: 'object',
      required: ['code', 'error_code', 'type', 'message', 'detail'],
      properties: { code: { type: 'integer' }, error_code: { type: 'string' }, type: { type: 'string' }, message: { type: 'string' }, detail: { type: 'string' } },
    },
    ShortError: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: { code: { type: 'integer' }, message: { type: 'string' } },
    },
    /** The page meta of every cursor-paged list (users, objects, lists, messages, inbox). */
    CursorMeta: {
      type: 'object',
      required: ['limit', 'count', 'before', 'after', 'has_prev', 'has_next'],
      additionalProperties: false,
      properties: {
        limit: { type: 'integer' },
        count: { type: 'integer' },
        before: { type: ['string', 'null'], description: 'Cursor of the previous page; null when there is none' },
        after: { type: ['string', 'null'], description: 'Cursor of the next page; null when there is none' },
        has_prev: { type: 'boolean' },
        has_next: { type: 'boolean' },
      },
    },
  },
} as const;

/**
 * An operation's `requestBody` whose schema is the one its handler validates with
 * (`@ValidBody`), written as the OpenAPI document holds it; never a copy by hand.
 */
export function schemaRequestBody(schema: TSchema, description?: string, mediaType = 'application/json'): Record<string, unknown> {
  return { required: true, ...(description ? { description } : {}), content: { [mediaType]: { schema: openApiSchemaOf(schema) } } };
}


import { OPERATOR_ROLES } from '../auth/roles';
import { schemaRequestBody } from '@herald/runtime';
import { InvitationAcceptSchema, OperatorInviteSchema, OperatorRoleChangeSchema, OperatorSignInSchema, PasswordResetUseSchema } from './request-bodies';
import { Schema, dateTime, errorResponses, json, nullable, paging, query, ref } from '../openapi/openapi-parts';

/** The management API's description of operators, console sessions, SSO and the audit log, merged into management-openapi.ts. */
const ERROR_TEXT: Record<number, string> = {
  400: 'Validation error: every failing field by its path in `detail`',
  401: 'Missing or invalid credentials (wrong email or password; a session that ended)',
  403: "The caller's role is below the route's",
  404: 'Unknown operator (or not an active one), or an invitation or password reset link unknown, used or expired',
  409: 'The address is already an operator, or the change would leave the account without an owner',
  429: 'Too many failed sign-ins from this address or for this email; Retry-After says when to try again',
};
const errors = errorResponses(ERROR_TEXT, 'Error');
const role: Schema = { type: 'string', enum: [...OPERATOR_ROLES], description: 'owner: everything, operators and credentials; editor: definitions; viewer: reads, secrets hidden' };
const sessionCookie = { description: 'Sets the `herald_session` cookie (HttpOnly, SameSite=Lax; Secure over HTTPS)', schema: { type: 'string' } };
const redirect = (description: string): Schema => ({ description, headers: { location: { schema: { type: 'string' } } } });

const operator: Schema = {
  type: 'object',
  required: ['id', 'email', 'name', 'role', 'status', 'has_password', 'created_at', 'last_sign_in_at'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    email: { type: 'string' },
    name: { type: 'string' },
    role,
    status: { type: 'string', enum: ['invited', 'active'], description: 'invited: the invitation is not accepted yet' },
    has_password: { type: 'boolean', description: 'false: signs in through SSO only (or not yet)' },
    created_at: dateTime,
    last_sign_in_at: nullable(dateTime),
  },
};

export const operatorsOpenApi = {
  schemas: {
    Operator: operator,
    OperatorInvited: {
      allOf: [
        ref('Operator'),
        {
          type: 'object',
          required: ['invitation'],
          properties: {
            invitation: {
              type: 'object',
              required: ['token', 'accept_url', 'expires_at'],
              description: 'Shown once; single-use, for a week. Herald sends no mail: hand the link over',
              properties: { token: { type: 'string' }, accept_url: { type: 'string', format: 'uri' }, expires_at: dateTime },
            },
          },
        },
      ],
    },
    OperatorPasswordReset: {
      type: 'object',
      required: ['token', 'reset_url', 'expires_at'],
      description: 'Shown once; single-use, for a day. Herald sends no mail: hand the link over',
      properties: { token: { type: 'string' }, reset_url: { type: 'string', format: 'uri' }, expires_at: dateTime },
    },
    OperatorSession: {
      type: 'object',
      required: ['operator', 'expires_at', 'sso'],
      properties: {
        operator: nullable(ref('Operator')),
        expires_at: nullable(dateTime),
        sso: { type: 'boolean', description: 'Sign-in through the identity provider is offered (HERALD_OIDC_ISSUER)' },
      },
    },
    ConsoleApiKey: {
      type: 'object',
      required: ['id', 'api_key', 'expires_at', 'read_only'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        api_key: { type: 'string' },
        expires_at: dateTime,
        read_only: { type: 'boolean', description: "A viewer's key: the notification API refuses it anything but GET and HEAD (403)" },
      },
    },
    AuditEntry: {
      type: 'object',
      required: ['id', 'seq', 'occurred_at', 'actor', 'workspace', 'method', 'route', 'path', 'resource_type', 'resource_ids', 'status_code', 'before', 'after'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        seq: { type: 'string', description: 'Position in the log (`before` of the next page)' },
        occurred_at: dateTime,
        actor: {
          type: 'object',
          required: ['kind', 'id', 'name'],
          properties: { kind: { type: 'string', enum: ['operator', 'service_token'] }, id: { type: 'string', format: 'uuid' }, name: { type: 'string', description: "The operator's email or the token's name" } },
        },
        workspace: nullable({ type: 'string' }),
        method: { type: 'string', enum: ['POST', 'PUT', 'PATCH', 'DELETE'] },
        route: { type: 'string', description: 'The route pattern, e.g. /v1/:workspace/workflow/:slug' },
        path: { type: 'string' },
        resource_type: { type: 'string', description: 'workflow, template, vendor, ws_key, operator, webhook_endpoint, preference_category...' },
        resource_ids: { type: 'object', additionalProperties: { type: 'string' } },
        status_code: { type: 'integer' },
        before: nullable({ type: 'object', description: 'The state before (its GET answer), secrets redacted' }),
        after: nullable({ type: 'object', description: 'The state after (the answer), secrets redacted' }),
      },
    },
  },
  paths: {
    '/v1/operator/': {
      get: {
        summary: "List the account's operators (any role)",
        parameters: paging,
        responses: { 200: json({ type: 'object', required: ['meta', 'results'], properties: { meta: { type: 'object' }, results: { type: 'array', items: ref('Operator') } } }, 'Operators, oldest first'), ...errors(400, 401) },
      },
      post: {
        summary: 'Invite an operator (owner); again for an invited address: a fresh link, the role given now',
        requestBody: schemaRequestBody(OperatorInviteSchema),
        responses: { 201: json(ref('OperatorInvited'), 'Invited, with the single-use link'), ...errors(400, 401, 403, 409) },
      },
    },
    '/v1/operator/{id}/': {
      patch: {
        summary: "Change an operator's role (owner); the last owner keeps it",
        parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'string', format: 'uuid' } }],
        requestBody: schemaRequestBody(OperatorRoleChangeSchema),
        responses: { 200: json(ref('Operator'), 'Changed'), ...errors(400, 401, 403, 404, 409) },
      },
      delete: {
        summary: 'Remove an operator (owner): signed out everywhere, the invitation stops working; not the last owner',
        parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'string', format: 'uuid' } }],
        responses: { 204: { description: 'Removed' }, ...errors(401, 403, 404, 409) },
      },
    },
    '/v1/operator/{id}/password_reset/': {
      post: {
        summary: 'A single-use link that sets a new password for an active operator (owner); the old password works until it is used, which ends every session of the operator',
        parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'string', format: 'uuid' } }],
        responses: { 201: json(ref('OperatorPasswordReset'), 'The link (replaces earlier ones)'), ...errors(401, 403, 404) },
      },
    },
    '/v1/operator_session/': {
      get: {
        summary: 'Who this browser is signed in as (the console sends X-Herald-Console: 1); operator null when no one',
        security: [],
        responses: { 200: json(ref('OperatorSession'), 'The session, or none') },
      },
      post: {
        summary: 'Sign in with email and password (failures limited per address and per email)',
        security: [],
        requestBody: schemaRequestBody(OperatorSignInSchema),
        responses: { 201: { ...json(ref('OperatorSession'), 'Signed in'), headers: { 'set-cookie': sessionCookie } }, ...errors(400, 401, 429) },
      },
      delete: {
        summary: "Sign out: the session ends on the server and the console's API keys of it are deleted",
        security: [],
        responses: { 204: { description: 'Signed out (also when no session was live)' } },
      },
    },
    '/v1/operator_session/invitation/': {
      post: {
        summary: 'Accept an invitation: set name and password, and sign in',
        security: [],
        requestBody: schemaRequestBody(InvitationAcceptSchema),
        responses: { 201: { ...json(ref('OperatorSession'), 'Accepted and signed in'), headers: { 'set-cookie': sessionCookie } }, ...errors(400, 404, 429) },
      },
    },
    '/v1/operator_session/password_reset/': {
      post: {
        summary: "Use a password reset link: set the new password, end the operator's other sessions, and sign in",
        security: [],
        requestBody: schemaRequestBody(PasswordResetUseSchema),
        responses: { 201: { ...json(ref('OperatorSession'), 'Password set and signed in'), headers: { 'set-cookie': sessionCookie } }, ...errors(400, 404, 429) },
      },
    },
    '/v1/operator_session/oidc/start/': {
      get: {
        summary: "Sign in with SSO: a redirect to the identity provider (authorization code flow with PKCE)",
        security: [],
        responses: { 302: redirect('To the identity provider'), ...errors(404) },
      },
    },
    '/v1/operator_session/oidc/callback/': {
      get: {
        summary: "The identity provider's redirect back: a session for the operator with the verified email, then the console",
        security: [],
        parameters: [query('code', { type: 'string' }, 'Authorization code'), query('state', { type: 'string' }, 'The state sent'), query('error', { type: 'string' }, 'The provider refused')],
        responses: { 302: redirect('To /console/ (with ?sso_error=... when refused)') },
      },
    },
    '/v1/{workspace}/console_api_key/': {
      post: {
        summary: "An API key for the console session's reads of the notification API (any role; expires and is deleted with the session)",
        parameters: [{ in: 'path', name: 'workspace', required: true, schema: { type: 'string' }, description: 'Workspace slug' }],
        responses: { 201: json(ref('ConsoleApiKey'), 'Created (shown once)'), ...errors(401, 403, 404) },
      },
    },
    '/v1/audit_log/': {
      get: {
        summary: 'The audit log: every change made through the management API, newest first (any role; secrets redacted)',
        parameters: [
          query('limit', { type: 'integer', minimum: 1, maximum: 200, default: 50 }, 'Page size'),
          query('before', { type: 'string' }, 'Entries older than this seq (`meta.next_before` of the previous page)'),
          query('workspace', { type: 'string' }, 'Only this workspace'),
          query('resource_type', { type: 'string' }, 'Only this kind (workflow, vendor, operator...)'),
          query('actor_id', { type: 'string', format: 'uuid' }, 'Only this operator or service token'),
          query('method', { type: 'string', enum: ['POST', 'PUT', 'PATCH', 'DELETE'] }, 'Only this method'),
          query('since', { type: 'string', format: 'date-time' }, 'Only entries at or after this time'),
        ],
        responses: {
          200: json(
            {
              type: 'object',
              required: ['meta', 'results'],
              properties: {
                meta: { type: 'object', required: ['limit', 'next_before'], properties: { limit: { type: 'integer' }, next_before: nullable({ type: 'string' }) } },
                results: { type: 'array', items: ref('AuditEntry') },
              },
            },
            'Entries, newest first',
          ),
          ...errors(400, 401),
        },
      },
    },
  },
};

/**
 * Every authenticated operation can also be refused for the caller's role (403): added to
 * each operation that lists 401 and not 403 yet, so the description says so everywhere.
 */
export function withRoleRefusals(paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>): void {
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const responses = operation.responses;
      if (responses && '401' in responses && !('403' in responses)) {
        responses['403'] = json(ref('ErrorResponse'), ERROR_TEXT[403]);
      }
    }
  }
}

/**
 * What the OpenAPI fragments of the routes SuprSend's browser SDK calls share (ingest-api's
 * `/v2/event`, channel-dispatchers' `/v1/feed/`, preference-service's `/v2/subscriber/`),
 * defined once so that the fragments merge.
 */
export const BROWSER_SDK_OPENAPI = {
  security: [{ InboxPublicKey: [], InboxUserToken: [] }],
  securitySchemes: {
    InboxPublicKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: "A workspace public key (`SS.PUBK.…`), as SuprSend's web SDK sends it" },
    InboxUserToken: {
      type: 'apiKey',
      in: 'header',
      name: 'x-ss-signature',
      description: 'An ES256 JWT signed with the workspace signing key by the customer backend: `distinct_id`, optional `tenant_id`, `iat`, `exp`',
    },
  },
  schemas: {
    /** Any error of those routes (SuprSendClientErrorFilter): Herald's fields, and the nested `error` the SDK reads. */
    SdkErrorResponse: {
      type: 'object',
      required: ['code', 'message', 'error'],
      properties: {
        code: { type: 'integer' },
        message: { type: 'string' },
        error: {
          type: 'object',
          required: ['type', 'message'],
          properties: { type: { type: 'string', description: 'VALIDATION_ERROR, AUTHENTICATION_FAILED, PERMISSION_DENIED, NOT_FOUND, …' }, message: { type: 'string' } },
        },
      },
    },
  },
} as const;

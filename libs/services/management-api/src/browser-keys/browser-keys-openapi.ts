import { schemaRequestBody } from '@herald/runtime';
import { PublicKeyCreateSchema, PublicKeyPatchSchema } from './request-bodies';
import { Schema, dateTime, errorResponses, json, nullable, offsetList, paging, pathParam, ref, workspaceParam } from '../openapi/openapi-parts';

/** The management API's description of the browser inbox's keys, merged into management-openapi.ts. */
const actor = nullable({ type: 'object', properties: { name: { type: 'string' }, email: nullable({ type: 'string' }) } });
const errors = errorResponses({ 400: 'Validation error: every failing field by its path in `detail`', 401: 'Missing or invalid service token' }, 'Unknown workspace or key');
const origins: Schema = nullable({
  type: 'array',
  maxItems: 50,
  items: { type: 'string', description: 'A browser origin: scheme, host and optional port (`https://app.example.com`)' },
});
const signingKeyFields: Record<string, Schema> = {
  id: { type: 'string' },
  uid: { type: 'string', description: 'Names the key in the roll and delete paths' },
  status: { type: 'string', enum: ['active', 'rolled'] },
  allowed_domains: nullable({ type: 'array', items: { type: 'string' } }),
  expiry_at: nullable(dateTime),
  created_at: dateTime,
  created_by: actor,
  rolled_at: nullable(dateTime),
  rolled_by: actor,
  deleted_at: nullable(dateTime),
  deleted_by: actor,
};

export const browserKeysOpenApi = {
  schemas: {
    PublicKey: {
      type: 'object',
      required: ['id', 'api_key', 'name', 'allowed_domains', 'is_secure_mode_enabled', 'is_deleted', 'is_default', 'created_at', 'updated_at'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        api_key: { type: 'string', description: 'The public key a web page sends in `Authorization` (not a secret)' },
        name: { type: 'string' },
        allowed_domains: { ...origins, description: 'Browser origins allowed to call the inbox with this key (CORS); null or empty allows none' },
        is_secure_mode_enabled: { type: 'boolean', description: 'Always true: the inbox always requires a signed user token' },
        is_deleted: { type: 'boolean' },
        is_default: { type: 'boolean' },
        created_at: dateTime,
        created_by: actor,
        rotated_at: nullable(dateTime),
        rotated_by: actor,
        updated_at: dateTime,
        updated_by: actor,
      },
    },
    SigningKey: { type: 'object', required: ['id', 'uid', 'status', 'created_at'], additionalProperties: false, properties: signingKeyFields },
    SigningKeyCreated: {
      type: 'object',
      required: ['id', 'uid', 'status', 'created_at', 'private_key_pem', 'private_key_base64'],
      additionalProperties: false,
      properties: {
        ...signingKeyFields,
        private_key_pem: { type: 'string', description: 'PKCS#8 PEM of the ES256 (P-256) private key: in this response only, never stored' },
        private_key_base64: { type: 'string', description: 'Base64 of private_key_pem' },
      },
    },
  } as Record<string, Schema>,
  paths: {
    '/v1/{workspace}/ws_public_key/': {
      get: {
        summary: 'List public keys (browser inbox)',
        parameters: [workspaceParam, ...paging],
        responses: { 200: json(offsetList(ref('PublicKey')), 'Public keys'), ...errors(400, 401, 404) },
      },
      post: {
        summary: 'Create a public key for the browser inbox',
        parameters: [workspaceParam],
        requestBody: schemaRequestBody(PublicKeyCreateSchema),
        responses: { 201: json(ref('PublicKey'), 'Created'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/ws_public_key/{public_key_id}/': {
      patch: {
        summary: "Update a public key's secure mode or allowed origins",
        parameters: [workspaceParam, pathParam('public_key_id', 'Public key id (ws_pubk_…)')],
        requestBody: schemaRequestBody(PublicKeyPatchSchema),
        responses: { 202: json(ref('PublicKey'), 'Updated'), ...errors(400, 401, 404) },
      },
      delete: {
        summary: 'Delete a public key',
        parameters: [workspaceParam, pathParam('public_key_id', 'Public key id (ws_pubk_…)')],
        responses: { 204: { description: 'Deleted' }, ...errors(401, 404) },
      },
    },
    '/v1/{workspace}/ws_public_key/{public_key_id}/rotate/': {
      patch: {
        summary: 'Rotate a public key: new key material for the same record',
        parameters: [workspaceParam, pathParam('public_key_id', 'Public key id (ws_pubk_…)')],
        responses: { 202: json(ref('PublicKey'), 'Rotated'), ...errors(401, 404) },
      },
    },
    '/v1/{workspace}/ws_signing_key/': {
      get: {
        summary: 'List signing keys (public halves only)',
        parameters: [workspaceParam, ...paging],
        responses: { 200: json(offsetList(ref('SigningKey')), 'Signing keys, newest first'), ...errors(400, 401, 404) },
      },
      post: {
        summary: 'Create the ES256 signing key (the private key is returned once)',
        parameters: [workspaceParam],
        responses: { 201: json(ref('SigningKeyCreated'), 'Created'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/ws_signing_key/{signing_key_uid}/': {
      delete: {
        summary: 'Delete a signing key: tokens it signed are refused',
        parameters: [workspaceParam, pathParam('signing_key_uid', 'Signing key uid')],
        responses: { 204: { description: 'Deleted' }, ...errors(401, 404) },
      },
    },
    '/v1/{workspace}/ws_signing_key/{signing_key_uid}/roll/': {
      post: {
        summary: 'Roll the active signing key: a new active key (private key returned once); the old one is marked rolled and verifies until deleted',
        parameters: [workspaceParam, pathParam('signing_key_uid', 'Uid of the active signing key')],
        responses: { 201: json(ref('SigningKeyCreated'), 'The new key'), ...errors(401, 404) },
      },
    },
  } as Record<string, Record<string, Schema>>,
};

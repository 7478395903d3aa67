import { SUPPRESSION_REASONS } from '@herald/contracts';
import { SUPPRESSIBLE_CHANNELS } from './suppression.repository';
import { schemaRequestBody } from '@herald/runtime';
import { SuppressionCreateSchema } from './request-bodies';
import { Schema, errorResponses, json, nullable, pathParam, ref, workspaceParam } from '../openapi/openapi-parts';

/** The management API's description of the suppression list, merged into management-openapi.ts. */
const errors = errorResponses(
  { 400: 'Validation error: every failing field by its path in `detail`', 401: 'Missing or invalid service token' },
  'Unknown workspace, or the address is not on the list',
);
const channel: Schema = { type: 'string', enum: [...SUPPRESSIBLE_CHANNELS] };
const keyParams = [
  workspaceParam,
  pathParam('channel', 'The channel the address is suppressed on', channel),
  pathParam('address', 'The address, URL-encoded (compared as sends compare it: an email without case, a phone number without spaces)'),
];
const reason: Schema = { type: 'string', enum: [...SUPPRESSION_REASONS] };

export const suppressionsOpenApi = {
  schemas: {
    Suppression: {
      type: 'object',
      required: ['channel', 'address', 'reason', 'detail', 'vendor', 'created_at'],
      properties: {
        channel,
        address: { type: 'string', description: 'As sends compare it: an email lower-cased, a phone number as +<digits>' },
        reason: { ...reason, description: 'hard_bounce and complaint come from vendor status callbacks; manual from this API' },
        detail: nullable({ type: 'string', description: "What the vendor said (its bounce text), or the operator's note" }),
        vendor: nullable({ type: 'string', description: '`<channel>/<vendor>` whose callback reported it; null for the API' }),
        created_at: { type: 'string', format: 'date-time', description: 'When the address was first put on the list' },
      },
    },
  } as Record<string, Schema>,
  paths: {
    '/v1/{workspace}/suppression/': {
      get: {
        summary: "List the workspace's suppressed addresses, newest first",
        parameters: [
          workspaceParam,
          { in: 'query', name: 'channel', required: false, schema: channel, description: 'Only this channel' },
          { in: 'query', name: 'address', required: false, schema: { type: 'string' }, description: 'Only this address (in any channel without `channel`)' },
          { in: 'query', name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 20 }, description: 'Page size' },
          { in: 'query', name: 'offset', required: false, schema: { type: 'integer', minimum: 0, default: 0 }, description: 'Results to skip' },
        ],
        responses: {
          200: json(
            {
              type: 'object',
              required: ['meta', 'results'],
              properties: {
                meta: { type: 'object', required: ['count', 'limit', 'offset'], properties: { count: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' } } },
                results: { type: 'array', items: ref('Suppression') },
              },
            },
            'Suppressed addresses',
          ),
          ...errors(400, 401, 404),
        },
      },
      post: {
        summary: 'Suppress an address: sends to it are skipped (the message fails with `suppressed: ...`) until it is removed',
        parameters: [workspaceParam],
        requestBody: schemaRequestBody(SuppressionCreateSchema),
        responses: { 201: json(ref('Suppression'), 'On the list (an entry already there takes the new reason and detail)'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/suppression/{channel}/{address}/': {
      get: {
        summary: 'Whether an address is suppressed, and why',
        parameters: keyParams,
        responses: { 200: json(ref('Suppression'), 'On the list'), ...errors(401, 404) },
      },
      delete: {
        summary: 'Take an address off the list: its next send goes out',
        parameters: keyParams,
        responses: { 204: { description: 'Removed' }, ...errors(401, 404) },
      },
    },
  } as Record<string, Record<string, Schema>>,
};

/**
 * The pieces every management-api OpenAPI fragment is written with (management-openapi.ts
 * and the fragments it merges: operators, browser keys, status webhooks, suppressions),
 * written once here.
 */
import { TSchema } from '@sinclair/typebox';
import { schemaRequestBody } from '@herald/runtime';

export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
export const dateTime: Schema = { type: 'string', format: 'date-time' };
/** A response with a JSON body. */
export const json = (schema: Schema, description: string): Schema => ({ description, content: { 'application/json': { schema } } });
/** The request body of a schema (`schemaRequestBody`) that the operation may go without: its handler reads none as `{}`. */
export const optionalSchemaRequestBody = (schema: TSchema): Schema => ({ ...schemaRequestBody(schema), required: false });
export const query = (name: string, schema: Schema, description: string): Schema => ({ in: 'query', name, required: false, schema, description });
export const pathParam = (name: string, description: string, schema: Schema = { type: 'string' }): Schema => ({ in: 'path', name, required: true, schema, description });
export const workspaceParam = pathParam('workspace', 'Workspace slug');
/** `limit` and `offset` of an offset-paged list. */
export const paging = [
  query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 20 }, 'Page size'),
  query('offset', { type: 'integer', minimum: 0, default: 0 }, 'Results to skip'),
];
/** An offset-paged list's answer: `meta` and the page's `results`. */
export const offsetList = (item: Schema): Schema => ({
  type: 'object',
  required: ['meta', 'results'],
  properties: {
    meta: { type: 'object', required: ['count', 'limit', 'offset'], properties: { count: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' } } },
    results: { type: 'array', items: item },
  },
});

/** Error responses (`ErrorResponse` bodies) for `statuses`, each described by its text, else by `otherwise`. */
export function errorResponses(texts: Readonly<Record<number, string>>, otherwise: string): (...statuses: number[]) => Record<string, Schema> {
  return (...statuses) => Object.fromEntries(statuses.map((status) => [String(status), json(ref('ErrorResponse'), texts[status] ?? otherwise)]));
}

import { Static, Type } from '@sinclair/typebox';
import { Nullable, Present } from '@herald/contracts';
import { NotAField, managementSchemas } from '../openapi/management-schemas';

/**
 * The request bodies of `/v1/{workspace}/schema/...`, and the link to a schema that events
 * and workflows carry (docs/architecture.md, "Contracts"): the handlers' `@ValidBody`
 * validates with them and management-openapi.ts shows them.
 */

/** At most Postgres' integer (the column's type): 1e308 is an integer to JavaScript and a 500 to Postgres. */
const MAX_VERSION_NO = 2_147_483_647;

export const PayloadSchemaLinkSchema = managementSchemas.named(
  'PayloadSchemaLink',
  Type.Object(
    {
      schema: Present(Type.String({ minLength: 1, 'x-message': 'is required: a schema slug', description: 'Schema slug' })),
      version_no: Nullable(
        Type.Integer({
          minimum: 1,
          maximum: MAX_VERSION_NO,
          'x-message': 'must be a positive integer or null (the live version)',
          description: 'A committed version to pin; null or absent: the live one',
        }),
      ),
    },
    {
      required: ['schema'],
      additionalProperties: NotAField('is not a field of payload_schema (schema, version_no)'),
      'x-message': 'must be an object {schema, version_no?}',
      'x-required-message': 'is required: a schema slug',
      description: 'A schema the data of triggers must satisfy (ingest answers 400 naming each failing path); it must be live when the workflow is committed',
    },
  ),
);
export type PayloadSchemaLink = Static<typeof PayloadSchemaLinkSchema>;

export const SchemaBodySchema = managementSchemas.named(
  'SchemaBody',
  Type.Object(
    {
      name: Present(Type.String({ minLength: 1, pattern: '\\S', 'x-message': 'is required: a non-empty string' })),
      description: Nullable(Type.String({ 'x-message': 'must be a string or null' })),
      json_schema: Type.Unsafe<Record<string, unknown>>({
        type: 'object',
        'x-check': 'json_schema',
        'x-message': 'must be a JSON Schema object',
        description: 'Must compile as a JSON Schema (400 otherwise, with the reason)',
      }),
    },
    {
      additionalProperties: NotAField('is not a field of a schema (name, description, json_schema)'),
      'x-message': 'the body must be a JSON object',
    },
  ),
);
export type SchemaBody = Static<typeof SchemaBodySchema>;

export const SCHEMA_BODIES = {
  upsert: managementSchemas.parser(SchemaBodySchema),
} as const;

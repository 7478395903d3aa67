import { Static, Type } from '@sinclair/typebox';
import { NotAField, managementSchemas } from '../openapi/management-schemas';
import { PayloadSchemaLinkSchema } from '../schemas/request-bodies';

/**
 * The request bodies of `/v1/{workspace}/event/...` (docs/architecture.md, "Contracts"):
 * the handlers' `@ValidBody` validates with them and management-openapi.ts shows them.
 */

const description = Type.String({ description: 'What the event means' });

export const EventBodySchema = managementSchemas.named(
  'EventBody',
  Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', 'x-message': 'is required: a non-empty string of at most 255 characters' }),
      description: Type.Optional(description),
      payload_schema: Type.Optional(PayloadSchemaLinkSchema),
    },
    {
      additionalProperties: NotAField('is not a field of an event (name, description, payload_schema)'),
      'x-message': 'the body must be a JSON object',
      'x-required-message': 'is required: a non-empty string of at most 255 characters',
      description: 'Registers an event, or updates the one of that name',
    },
  ),
);
export type EventBody = Static<typeof EventBodySchema>;

export const EventChangeSchema = managementSchemas.named(
  'EventChange',
  Type.Object(
    { description: Type.Optional(description), payload_schema: Type.Optional(PayloadSchemaLinkSchema) },
    {
      additionalProperties: NotAField('is not a field of an event (description, payload_schema)'),
      'x-message': 'the body must be a JSON object',
      description: 'Changes the description or links a schema',
    },
  ),
);
export type EventChange = Static<typeof EventChangeSchema>;

export const EVENT_BODIES = {
  register: managementSchemas.parser(EventBodySchema),
  change: managementSchemas.parser(EventChangeSchema),
} as const;

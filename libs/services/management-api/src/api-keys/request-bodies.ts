import { Static, Type } from '@sinclair/typebox';
import { FormattedString, Nullable } from '@herald/contracts';
import { BoundedText } from '../http/settings-body-rules';
import { managementSchemas } from '../openapi/management-schemas';

/**
 * The body of `POST /v1/{workspace}/ws_api_key/` (docs/architecture.md, "Contracts"): the
 * handler's `@ValidBody` validates it, management-openapi.ts shows it. That `expires_at`
 * is in the future is the handler's rule (it reads the clock).
 */
export const ApiKeyCreateSchema = managementSchemas.named(
  'ApiKeyCreate',
  Type.Object(
    {
      name: BoundedText(1, 64),
      description: Nullable(BoundedText(0, 500)),
      expires_at: Nullable(FormattedString('iso_8601', { description: 'When the key stops working (ISO 8601), in the future; omitted: until deleted' })),
      read_only: Nullable(
        Type.Boolean({ default: false, description: 'Herald: a key that may only read (GET and HEAD on the notification API), for dashboards; anything else is refused with 403' }),
      ),
    },
    { 'x-message': 'must be a JSON object' },
  ),
);
export type ApiKeyCreate = Static<typeof ApiKeyCreateSchema>;

export const API_KEY_BODIES = { create: managementSchemas.parser(ApiKeyCreateSchema) } as const;

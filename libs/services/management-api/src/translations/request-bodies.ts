import { Static, Type } from '@sinclair/typebox';
import { NotAField, managementSchemas } from '../openapi/management-schemas';

/**
 * The request body of `POST /v1/{workspace}/translation/content/{locale_file}/`
 * (docs/architecture.md, "Contracts"): the handler's `@ValidBody` validates with it and
 * management-openapi.ts shows it. That `locale`, if given, is the path's file name stays
 * code (translation-files.ts): a schema does not see the path.
 */
export const TranslationBodySchema = managementSchemas.named(
  'TranslationBody',
  Type.Object(
    {
      locale: Type.Optional(Type.String({ description: 'The file name of the path, if given' })),
      content: Type.Unsafe<Record<string, string>>({
        type: 'object',
        additionalProperties: { type: 'string' },
        propertyNames: { pattern: '\\S', 'x-message': 'a key must not be empty' },
        'x-message': 'is required: an object of translation keys to strings',
        description: 'Keys to texts; a text may use placeholders of the data, e.g. "Bonjour {{name}}"',
      }),
    },
    {
      additionalProperties: NotAField('is not a field of a translation (locale, content)'),
      'x-message': 'the body must be a JSON object',
      'x-required-message': 'is required: an object of translation keys to strings',
    },
  ),
);
export type TranslationBody = Static<typeof TranslationBodySchema>;

export const TRANSLATION_BODIES = {
  upsert: managementSchemas.parser(TranslationBodySchema),
} as const;

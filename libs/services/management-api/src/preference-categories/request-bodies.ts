import { Static, Type } from '@sinclair/typebox';
import { Nullable } from '@herald/contracts';
import { NotAField, managementSchemas } from '../openapi/management-schemas';
import { DEFAULT_PREFERENCES, MANDATORY_CHANNELS, PREFERENCE_CHANNELS, ROOT_CATEGORIES } from './category-document';

/**
 * The request bodies of `/v1/{workspace}/preference_category/...` (docs/architecture.md,
 * "Contracts"): the handlers' `@ValidBody` validates with them and management-openapi.ts
 * shows them.
 *
 * The categories document's schema says its shape (fields and types, null counting as
 * absent where the document's validator reads it so); what makes it valid (slugs, values,
 * each category once, one default digest option) is validate-category-document.ts after
 * the parse, and a draft is kept with its `validation_result` even when invalid.
 */

const text = (description?: string) => Nullable(Type.String(description === undefined ? {} : { description }));
const list = (description: string) => Nullable(Type.Array(Type.String(), { 'x-message': 'must be an array or null', description }));
const oneOf = (values: readonly string[]) => `One of ${values.join(', ')}`;

const CategorySchema = Type.Object(
  {
    category: text('The slug: lowercase and hyphenated, unique in the document'),
    name: text('Required, at most 255 characters'),
    description: text(),
    default_preference: text(oneOf(DEFAULT_PREFERENCES)),
    default_mandatory_channels: list(`Only when default_preference is cant_unsubscribe; each ${oneOf(MANDATORY_CHANNELS)}`),
    default_opt_in_channels: list(`Each ${oneOf(PREFERENCE_CHANNELS)}`),
    tags: list('Lowercase and hyphenated'),
    digest_schedule_options: Nullable(
      Type.Object({}, { 'x-message': 'must be an object with an options array', description: "Herald: schedule options for the category's digests ({options: [...]}, one the default)" }),
    ),
    properties: Nullable(Type.Array(Type.Object({}), { description: 'Herald: condition properties users may override' })),
  },
  { 'x-message': 'must be an object' },
);

const SectionSchema = Type.Object(
  {
    name: text('Required, at most 255 characters'),
    description: text(),
    tags: list('Lowercase and hyphenated'),
    categories: Nullable(Type.Array(CategorySchema)),
  },
  { 'x-message': 'must be an object' },
);

export const PreferenceCategoriesBodySchema = managementSchemas.named(
  'PreferenceCategoriesBody',
  Type.Object(
    {
      root_categories: Type.Optional(
        Type.Array(
          Type.Object(
            { root_category: text(`${oneOf(ROOT_CATEGORIES)}, each once`), sections: Nullable(Type.Array(SectionSchema)) },
            { 'x-message': 'must be an object' },
          ),
          { description: 'A root left out is stored empty' },
        ),
      ),
    },
    {
      'x-message': 'the body must be a JSON object',
      description: 'The whole categories document, saved as the draft (valid or not, with its validation_result); `{}` is an empty draft. The fields a GET answers around the document may be sent back.',
    },
  ),
);
export type PreferenceCategoriesBody = Static<typeof PreferenceCategoriesBodySchema>;

/** Bounds of a category translation, so that one workspace cannot store an unbounded document. */
export const MAX_TRANSLATED_ENTRIES = 1_000;
export const MAX_TRANSLATED_TEXT = 1_000;
const MAX_SLUG = 255;

const translatedText = Nullable(
  Type.String({
    'x-message': 'must be a string or null',
    allOf: [{ maxLength: MAX_TRANSLATED_TEXT, 'x-message': `must have at most ${MAX_TRANSLATED_TEXT} characters` }],
  }),
);

const CategoryTextTranslationSchema = managementSchemas.named(
  'CategoryTextTranslation',
  Type.Object(
    { name: translatedText, description: translatedText },
    { additionalProperties: NotAField('is not a field of a translated text (name, description)'), 'x-message': 'must be an object {name, description}' },
  ),
);

const texts = (description: string) =>
  Nullable(
    Type.Unsafe<Record<string, Static<typeof CategoryTextTranslationSchema>>>({
      type: 'object',
      additionalProperties: CategoryTextTranslationSchema,
      'x-message': 'must be an object of slugs to {name, description}',
      propertyNames: { minLength: 1, maxLength: MAX_SLUG, pattern: '\\S', 'x-message': `a slug must have 1 to ${MAX_SLUG} characters` },
      allOf: [{ maxProperties: MAX_TRANSLATED_ENTRIES, 'x-message': `must have at most ${MAX_TRANSLATED_ENTRIES} entries` }],
      description,
    }),
  );

export const CategoryTranslationSchema = managementSchemas.named(
  'CategoryTranslation',
  Type.Object(
    { sections: texts('Translated texts per section slug'), categories: texts('Translated texts per category slug') },
    {
      additionalProperties: NotAField('is not a field of a category translation (sections, categories)'),
      'x-message': 'the body must be a JSON object',
      description: 'A locale\'s names and descriptions of the sections and categories, keyed by slug; a missing text is stored as null',
    },
  ),
);
export type CategoryTranslationBody = Static<typeof CategoryTranslationSchema>;

export const CATEGORY_BODIES = {
  categories: managementSchemas.parser(PreferenceCategoriesBodySchema),
  translation: managementSchemas.parser(CategoryTranslationSchema),
} as const;

import { Static, TSchema, Type } from '@sinclair/typebox';
import { CHANNELS, JsonRecord, Nullable, StringEnum } from '@herald/contracts';
import { NotAField, managementSchemas, optionalBody } from '../openapi/management-schemas';
import { CONTENT_RULES } from './variant-content';
import { VENDOR_APPROVAL_STATUSES, VENDOR_TEMPLATE_CATEGORIES } from './vendor-approval';

/**
 * The request bodies of `/v2/{workspace}/template/...` (docs/architecture.md, "Contracts"):
 * the handlers' `@ValidBody` validates with them and management-openapi.ts shows them.
 * A variant's content is checked per channel after the parse (variant-content.ts) and saved
 * even when it fails, as an editor saves work in progress; `VariantContent` shows its rules.
 */

/** Template slugs, as the workflow send nodes reference them: 1 to 120 of a-z, 0-9, - and _. */
export const TEMPLATE_SLUG = /^[a-z0-9-_]{1,120}$/;
/** Variant ids name a variant within its channel (`default`, `spanish`, `tenant-acme`). */
export const VARIANT_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Language tags as `en`, `pt-BR`, `zh-Hans` (also `en_US`, as some vendors write them). */
const VARIANT_LOCALE = '^[a-z]{2,3}([-_][A-Za-z0-9]{2,8})*$';
/** The locale a preview's `{{t}}` keys are looked up for. */
const PREVIEW_LOCALE = '^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8}){0,3}$';

/** The namespaces a variant condition reads at send time; empty means the trigger payload. */
export const CONDITION_NAMESPACES = ['', '$recipient', '$actor', '$tenant', '$brand'] as const;
export const CONDITION_OPS = ['==', '!=', '>', '<', '>=', '<=', 'EMPTY', 'NON_EMPTY', 'CONTAINS', 'NOT_CONTAINS'] as const;

/** A string of `min` to `max` characters, worded as one rule. */
const sized = (min: number, max: number, options: Record<string, unknown> = {}) =>
  Type.String({ minLength: min, maxLength: max, 'x-message': min === max ? `must be a string of ${max} characters` : `must be a string of ${min} to ${max} characters`, ...options });

/** A value that may also be null, where null means something (clears the field), unlike `Nullable`'s null-as-absent. */
const OrNull = <T extends TSchema>(schema: T, message: string) => Type.Union([schema, Type.Null({ 'x-message': message })]);

const channel = StringEnum(CHANNELS);

// ---- Templates -----------------------------------------------------------------------------

export const TemplateBodySchema = managementSchemas.named(
  'TemplateBody',
  Type.Object(
    {
      name: sized(1, 255),
      description: Type.Optional(OrNull(Type.String({ maxLength: 2000, 'x-message': 'must be a string of at most 2000 characters, or null' }), 'must be a string of at most 2000 characters, or null')),
      tags: Nullable(Type.Array(sized(1, 64), { maxItems: 50, 'x-message': 'must be an array of at most 50 tags' })),
      enabled_channels: Nullable(Type.Array(channel, { uniqueItems: true, 'x-message': 'must be an array of distinct channels' })),
      strict: Nullable(
        Type.Boolean({
          default: false,
          'x-message': 'must be a boolean',
          description:
            'A delivery whose content uses a variable missing from the data fails with delivery_failure, its failure_reason naming each missing `field: path`, and is not retried (instead of rendering it empty). Takes effect when committed',
        }),
      ),
    },
    { 'x-message': 'the body must be a JSON object', description: 'A field left out (or null) keeps its value on update; `description: null` clears it' },
  ),
);
export type TemplateBody = Static<typeof TemplateBodySchema>;

export const TemplateCommitBodySchema = managementSchemas.named(
  'TemplateCommitBody',
  Type.Object(
    { commit_message: Nullable(Type.String({ maxLength: 1000, 'x-message': 'must be a string of at most 1000 characters', description: 'The query parameter wins' })) },
    { 'x-message': 'the body must be a JSON object', description: "The body of a template's PATCH .../commit/; no body is the same as {}" },
  ),
);
export type TemplateCommitBody = Static<typeof TemplateCommitBodySchema>;

// ---- Variants ------------------------------------------------------------------------------

export const VariantConditionSchema = managementSchemas.named(
  'VariantCondition',
  Type.Object(
    {
      type: StringEnum(['expression_v1'] as const),
      expression_v1: Type.Object({
        op: StringEnum(['AND', 'OR'] as const),
        args: Type.Array(
          Type.Object({
            variable_ns: Nullable(
              StringEnum(CONDITION_NAMESPACES, { 'x-message': `must be one of "", ${CONDITION_NAMESPACES.slice(1).join(', ')}`, description: 'Empty: the trigger payload' }),
            ),
            variable: sized(1, 255),
            op: StringEnum(CONDITION_OPS),
            value: Nullable(Type.String({ maxLength: 1000, 'x-message': 'must be a string of at most 1000 characters' })),
          }),
          { minItems: 1, maxItems: 50, 'x-noun': 'comparison' },
        ),
      }),
    },
    { description: '`{type: "expression_v1", expression_v1: {op, args}}`, as the reference\'s variant conditions' },
  ),
);
export type VariantCondition = Static<typeof VariantConditionSchema>;

/**
 * Herald's content fields per channel (its name as the title), from the rules a variant's
 * content is checked against after the parse: documentation (the console draws its content
 * forms from it), not part of a body's validation, since content is saved with its errors.
 */
export const VariantContentSchema = managementSchemas.named(
  'VariantContent',
  Type.Unsafe<Record<string, unknown>>(
    JSON.parse(
      JSON.stringify({
        description: "A channel's content; every string may hold Handlebars placeholders (docs/reference.md has an example of each)",
        anyOf: Object.entries(CONTENT_RULES).map(([name, rules]) => ({
          title: name,
          type: 'object',
          required: Object.entries(rules.fields)
            .filter(([, rule]) => rule.kind === 'string' && rule.required === true)
            .map(([field]) => field),
          properties: Object.fromEntries(
            Object.entries(rules.fields).map(([field, rule]) => [
              field,
              rule.kind === 'string'
                ? { type: 'string', maxLength: rule.max }
                : rule.kind === 'string_list'
                  ? { type: 'array', items: { type: 'string' }, maxItems: rule.maxItems }
                  : rule.kind === 'object_list'
                    ? { type: 'array', items: { type: 'object' }, maxItems: rule.maxItems }
                    : rule.kind === 'boolean'
                      ? { type: 'boolean' }
                      : rule.kind === 'string_or_object'
                        ? { anyOf: [{ type: 'string', maxLength: rule.max }, { type: 'object' }] }
                        : { type: 'object' },
            ]),
          ),
        })),
      }),
    ) as Record<string, unknown>,
  ),
);

/** Content as a body carries it: an object, checked against its channel's rules (`VariantContent`) after the parse. */
const content = (description: string) => Type.Unsafe<JsonRecord>({ type: 'object', 'x-message': 'must be an object', description });

export const VariantBodySchema = managementSchemas.named(
  'VariantBody',
  Type.Object(
    {
      locale: Type.String({ pattern: VARIANT_LOCALE, 'x-message': 'must be a language tag such as en or pt-BR' }),
      tenant_id: Nullable(sized(1, 255, { description: 'Left out or null: the default variant' })),
      conditions: Nullable(Type.Array(VariantConditionSchema, { maxItems: 20, 'x-noun': 'condition' })),
      content: content("The channel's content (one of VariantContent's shapes); checked per channel and saved even when it has errors"),
      seq_no: Nullable(
        Type.Integer({ minimum: 1, maximum: 10_000, 'x-message': 'must be an integer from 1 to 10000', description: 'Left out: keeps its place, or takes the next free one' }),
      ),
      needs_vendor_approval: Nullable(Type.Boolean({ 'x-message': 'must be a boolean', description: 'sms only may opt out; whatsapp always needs it; other channels never' })),
    },
    { 'x-message': 'the body must be a JSON object', description: 'The whole variant, which replaces the draft; content is checked per channel and saved even when it has errors' },
  ),
);
export type VariantBody = Static<typeof VariantBodySchema>;

// ---- Vendor approval -----------------------------------------------------------------------

const REJECTION_REASON = 'must be a string; it is required when approval_status is rejected';

export const VendorApprovalBodySchema = managementSchemas.named(
  'VendorApprovalBody',
  Type.Object(
    {
      approval_status: StringEnum(VENDOR_APPROVAL_STATUSES),
      vendor_slug: sized(1, 100),
      vendor_uid: sized(1, 255),
      vendor_template_name: Nullable(sized(1, 512)),
      vendor_template_id: Nullable(sized(1, 255)),
      vendor_locale_code: Nullable(sized(1, 20)),
      vendor_template_category: Nullable(StringEnum(VENDOR_TEMPLATE_CATEGORIES)),
      provider_template_id: Nullable(sized(1, 255)),
      comment: Type.Optional(sized(1, 2000, { 'x-message': REJECTION_REASON, description: 'Required when approval_status is rejected' })),
    },
    {
      'x-message': 'the body must be a JSON object',
      description: 'What a vendor said; vendor_template_name and vendor_template_id must be known (given now or before) to approve',
      if: { properties: { approval_status: { const: 'rejected' } }, required: ['approval_status'] },
      then: { required: ['comment'], 'x-required-message': REJECTION_REASON },
    },
  ),
);
export type VendorApprovalBody = Static<typeof VendorApprovalBodySchema>;

export const DiscardVariantBodySchema = managementSchemas.named(
  'DiscardVariantBody',
  Type.Object({ comment: sized(1, 2000, { description: 'Why it was discarded' }) }, { 'x-message': 'the body must be a JSON object' }),
);
export type DiscardVariantBody = Static<typeof DiscardVariantBodySchema>;

// ---- Mock data and previews ----------------------------------------------------------------

/** Digests of more events than this are not worth previewing, and would make the answer huge. */
export const MAX_BATCH_COUNT = 100;
const SUB_TYPES = ['user', 'object'] as const;
const identity = OrNull(Type.String({ pattern: '\\S', 'x-message': 'must be null or a non-empty string' }), 'must be null or a non-empty string');
/** `{object_type, id}` or null, its message at the field as the mock data reader gave it. */
const objectRef = Type.Unsafe<{ object_type: string; id: string } | null>({ 'x-check': 'object_ref_or_null', description: 'null, or {object_type, id} with non-empty strings' });

export const MockDataBodySchema = managementSchemas.named(
  'MockDataBody',
  Type.Object(
    {
      payload: Type.Optional(Type.Unsafe<JsonRecord>({ type: 'object', 'x-message': 'must be a JSON object', description: 'Sample trigger data' })),
      tenant_id: Type.Optional(identity),
      is_batch: Type.Optional(Type.Boolean({ 'x-message': 'must be a boolean' })),
      batch_count: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_BATCH_COUNT, 'x-message': `must be an integer from 1 to ${MAX_BATCH_COUNT}` })),
      recipient_sub_type: Type.Optional(StringEnum(SUB_TYPES)),
      recipient_object: Type.Optional(objectRef),
      recipient_distinct_id: Type.Optional(identity),
      actor_sub_type: Type.Optional(StringEnum(SUB_TYPES)),
      actor_object: Type.Optional(objectRef),
      actor_distinct_id: Type.Optional(identity),
    },
    {
      additionalProperties: NotAField(
        'is not a field of mock data (payload, tenant_id, is_batch, batch_count, recipient_sub_type, recipient_object, recipient_distinct_id, actor_sub_type, actor_object, actor_distinct_id)',
      ),
      'x-message': 'the body must be a JSON object',
      description: 'A partial update: the fields given replace the current ones; null clears a nullable one',
    },
  ),
);
export type MockDataBody = Static<typeof MockDataBodySchema>;

const previewData = Type.Optional(Type.Unsafe<JsonRecord>({ type: 'object', 'x-message': 'must be a JSON object', description: "Render with this instead of the template's mock data" }));
const previewLocale = (absent: string) =>
  Type.Optional(
    Type.String({
      pattern: PREVIEW_LOCALE,
      'x-message': 'must be a locale code such as fr or fr-CA',
      description: `The locale \`{{t}}\` keys are looked up for (then its language, then \`en\`); ${absent} if absent`,
    }),
  );

export const PreviewBodySchema = managementSchemas.named(
  'PreviewBody',
  Type.Object(
    { data: previewData, locale: previewLocale("the variant's locale") },
    { additionalProperties: NotAField('is not a field of a preview request (data, locale)'), 'x-message': 'the body must be a JSON object', description: 'No body: the mock data, in the variant\'s locale' },
  ),
);
export type PreviewBody = Static<typeof PreviewBodySchema>;

export const DraftPreviewBodySchema = managementSchemas.named(
  'DraftPreviewBody',
  Type.Object(
    {
      content: content("The channel's content as an editor holds it, not saved yet (one of VariantContent's shapes; email may give `mjml` instead of `html`)"),
      data: previewData,
      locale: previewLocale('`en`'),
    },
    { additionalProperties: NotAField('is not a field of a preview request (content, data, locale)'), 'x-message': 'the body must be a JSON object' },
  ),
);
export type DraftPreviewBody = Static<typeof DraftPreviewBodySchema>;

export const TEMPLATE_BODIES = {
  template: managementSchemas.parser(TemplateBodySchema),
  commit: optionalBody(managementSchemas.parser(TemplateCommitBodySchema)),
  variant: managementSchemas.parser(VariantBodySchema),
  vendorApproval: managementSchemas.parser(VendorApprovalBodySchema),
  discard: managementSchemas.parser(DiscardVariantBodySchema),
  mockData: managementSchemas.parser(MockDataBodySchema),
  preview: optionalBody(managementSchemas.parser(PreviewBodySchema)),
  draftPreview: optionalBody(managementSchemas.parser(DraftPreviewBodySchema)),
} as const;

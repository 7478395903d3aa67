import { TSchema, Type } from '@sinclair/typebox';
import { Check, Formats, SchemaKit, SchemaParser, compilePayloadSchema } from '@herald/contracts';
import { SETTINGS_CHECKS, SETTINGS_FORMATS } from '../http/settings-body-rules';

// ---- Content authoring (workflows, schemas, events, translations, categories, templates) ----

/** String rules of the content-authoring bodies: each answers its message, as their hand readers did. */
const CONTENT_FORMATS: Formats = {
  // As lenient as the replay reader was (anything Date.parse reads), so what was accepted stays accepted.
  'date-time': (value) => (Number.isNaN(Date.parse(value)) ? 'must be an ISO 8601 date-time' : undefined),
};

/** Rules on whole values of the content-authoring bodies. */
const CONTENT_CHECKS: Readonly<Record<string, Check>> = {
  /** A schema's `json_schema` must compile (the reason otherwise, as ingest would meet it). */
  json_schema: (value) => {
    const compiled = compilePayloadSchema(value);
    return compiled.ok ? undefined : compiled.errors[0].message;
  },
  /** A template mock data's recipient or actor object: null, or `{object_type, id}` with non-empty strings. */
  object_ref_or_null: (value) => (value === null || isObjectRef(value) ? undefined : 'must be null or {object_type, id} with non-empty strings'),
};

function isObjectRef(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const nonEmpty = (field: unknown) => typeof field === 'string' && field.trim() !== '';
  return 'object_type' in value && 'id' in value && nonEmpty(value.object_type) && nonEmpty(value.id);
}

/**
 * What an object says of a property it does not have, for a body that refuses unknown
 * fields (`colour: is not a field of an event (name, description, payload_schema)`): an
 * `additionalProperties` that no value passes, worded.
 */
export const NotAField = (message: string) => Type.Unsafe<never>({ not: {}, 'x-message': message });

/**
 * A parser for a body a route may go without (a commit, a replay, a preview): no body, or
 * JSON null, reads as `{}`, as Nest's DTO pipe and the hand readers read it.
 */
export function optionalBody<T extends TSchema>(parser: SchemaParser<T>): SchemaParser<T> {
  const present = (value: unknown): unknown => value ?? {};
  return { schema: parser.schema, errors: (value) => parser.errors(present(value)), parse: (value) => parser.parse(present(value)) };
}

// ---- The kit ------------------------------------------------------------------------------

/**
 * management-api's schema kit (docs/architecture.md, "Contracts"): every request body of
 * its routes is a TypeBox schema compiled by this kit, validated by the handler's
 * `@ValidBody` and shown by the management OpenAPI document, whose components include the
 * kit's named schemas. Named formats and checks (rules JSON Schema cannot say) are added here.
 */
export const managementSchemas = new SchemaKit(
  {
    // ---- Content authoring (CONTENT_FORMATS above) ----
    ...CONTENT_FORMATS,
    // ---- Settings bodies: workspaces, keys, operators, status webhooks, suppressions, vendors (settings-body-rules.ts) ----
    ...SETTINGS_FORMATS,
  },
  {
    ...CONTENT_CHECKS,
    ...SETTINGS_CHECKS,
  },
);

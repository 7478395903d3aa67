import { TSchema } from '@sinclair/typebox';
import { FieldError, Formats, SchemaKit, SchemaParser, idLengthProblem } from '@herald/contracts';

// ---- Profile, list, subscription and tenant bodies: formats and the required-body parser ----

/** String rules of the profile, list, subscription and tenant bodies, worded as their hand readers were. */
const PROFILE_AND_LIST_FORMATS: Formats = {
  /** A list_id: not blank, and once trimmed (as it is stored) as long as every `/v1/subscriber_list/{list_id}/` route allows. */
  list_id: (value) => (value.trim() === '' ? 'must be a non-empty string' : idLengthProblem(value.trim())),
  /** A list member's distinct_id: as long as a path segment allows; taken as sent (not trimmed). */
  member_id: idLengthProblem,
};

// ---- Preferences (preferences/request-bodies.ts) ------------------------------------------

/** String rules of the preference bodies. */
const PREFERENCE_FORMATS: Formats = {
  /** A digest schedule's `dtstart`: any date-time `Date.parse` reads, as the hand reader took it. */
  date_time: (value) => (Number.isNaN(Date.parse(value)) ? 'must be an ISO 8601 date-time' : undefined),
};

// ---- The kit ----

/**
 * preference-service's schema kit (docs/architecture.md, "Contracts"): every request body
 * of its routes is a TypeBox schema compiled by this kit, validated by the handler's
 * `@ValidBody` and shown by audience-openapi.ts, whose components include the kit's named
 * schemas. Named formats and checks (rules JSON Schema cannot say) are added here.
 */
export const audienceSchemas = new SchemaKit({ ...PROFILE_AND_LIST_FORMATS, ...PREFERENCE_FORMATS });

// ---- Profile, list, subscription and tenant bodies: the required-body parser ----

const NO_BODY: FieldError[] = [{ path: '', message: 'a JSON body is required' }];

/**
 * The kit's parser of `schema` for a route that needs a body: none at all (or JSON
 * `null`) is `a JSON body is required`, as these routes have always answered, rather
 * than the schema's `must be a JSON object`.
 */
export function requiredBodyParser<T extends TSchema>(schema: T): SchemaParser<T> {
  const parser = audienceSchemas.parser(schema);
  const missing = (value: unknown): boolean => value === undefined || value === null;
  return {
    schema,
    errors: (value) => (missing(value) ? NO_BODY : parser.errors(value)),
    parse: (value) => (missing(value) ? { ok: false, errors: NO_BODY } : parser.parse(value)),
  };
}

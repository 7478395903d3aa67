import { Formats, SchemaKit } from '@herald/contracts';

// ---- Preferences (preferences/request-bodies.ts) ------------------------------------------

/** String rules of the preference bodies. */
const PREFERENCE_FORMATS: Formats = {
  /** A digest schedule's `dtstart`: any date-time `Date.parse` reads, as the hand reader took it. */
  date_time: (value) => (Number.isNaN(Date.parse(value)) ? 'must be an ISO 8601 date-time' : undefined),
};

// ---------------------------------------------------------------------------------------

/**
 * preference-service's schema kit (docs/architecture.md, "Contracts"): every request body
 * of its routes is a TypeBox schema compiled by this kit, validated by the handler's
 * `@ValidBody` and shown by audience-openapi.ts, whose components include the kit's named
 * schemas. Named formats and checks (rules JSON Schema cannot say) are added here.
 */
export const audienceSchemas = new SchemaKit({ ...PREFERENCE_FORMATS });

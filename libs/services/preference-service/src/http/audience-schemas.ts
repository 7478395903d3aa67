import { SchemaKit } from '@herald/contracts';

/**
 * preference-service's schema kit (docs/architecture.md, "Contracts"): every request body
 * of its routes is a TypeBox schema compiled by this kit, validated by the handler's
 * `@ValidBody` and shown by audience-openapi.ts, whose components include the kit's named
 * schemas. Named formats and checks (rules JSON Schema cannot say) are added here.
 */
export const audienceSchemas = new SchemaKit({});

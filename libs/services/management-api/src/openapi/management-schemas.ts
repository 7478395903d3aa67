import { SchemaKit } from '@herald/contracts';
import { SETTINGS_CHECKS, SETTINGS_FORMATS } from '../http/settings-body-rules';

/**
 * management-api's schema kit (docs/architecture.md, "Contracts"): every request body of
 * its routes is a TypeBox schema compiled by this kit, validated by the handler's
 * `@ValidBody` and shown by the management OpenAPI document, whose components include the
 * kit's named schemas. Named formats and checks (rules JSON Schema cannot say) are added here.
 */
export const managementSchemas = new SchemaKit(
  {
    // ---- Settings bodies: workspaces, keys, operators, status webhooks, suppressions, vendors (settings-body-rules.ts) ----
    ...SETTINGS_FORMATS,
  },
  {
    // ---- Settings bodies (settings-body-rules.ts) ----
    ...SETTINGS_CHECKS,
  },
);

import { Static, Type } from '@sinclair/typebox';
import { FormattedString, Nullable } from '@herald/contracts';
import { managementSchemas } from '../openapi/management-schemas';

/**
 * A vendor's settings: a JSON object, any value by name. Spelled `NonNullable<unknown> | null`
 * (every JSON value) because TypeORM's write types refuse a plain `unknown`.
 */
export type VendorSettings = Record<string, NonNullable<unknown> | null>;

/**
 * The bodies of `/v1/{workspace}/vendor/{channel}/{vendor}/` (docs/architecture.md,
 * "Contracts"), shown by management-openapi.ts. The PUT's schema is the envelope; the
 * credential fields depend on the vendor the path names and on what is stored, so
 * vendor-change.ts checks them after it, against the catalogue (vendor-catalogue.ts), and
 * reports both in one 400. The document lists each vendor's fields in `VendorCredentials`.
 */
export const VendorBodySchema = managementSchemas.named(
  'VendorBody',
  Type.Object(
    {
      is_enabled: Nullable(Type.Boolean({ default: true })),
      priority: Nullable(
        Type.Integer({
          minimum: 1,
          maximum: 100,
          'x-message': 'must be an integer from 1 to 100',
          description: 'Lower is tried first when a channel falls back from one vendor to the next; required when the vendor is first configured',
        }),
      ),
      // Nullable says null may be sent; for base_url it means the vendor's default (vendor-change.ts).
      base_url: Nullable(
        FormattedString('vendor_base_url', {
          maxLength: 2048,
          'x-message': 'must be an http or https URL of at most 2048 characters',
          description: "http is allowed (a local test server); null returns to the vendor's default",
        }),
      ),
      credentials: Nullable(
        Type.Unsafe<Record<string, unknown>>({
          type: 'object',
          description:
            "The vendor's credential fields, as `VendorCredentials` lists them for each vendor (the path names the vendor; docs/reference.md has an example of each); on an update, a field given replaces its stored value, a field left out keeps it, null removes an optional one",
        }),
      ),
      settings: Nullable(Type.Unsafe<VendorSettings>({ type: 'object', description: 'Non-secret options (from name, sandbox mode); returned and announced in clear' })),
    },
    {
      'x-message': 'the body must be a JSON object',
      description: "Every field may be omitted on an update, which keeps its stored value; a first PUT needs `priority`, and the vendor's required credentials",
    },
  ),
);
export type VendorBody = Static<typeof VendorBodySchema>;

const TEST_DESTINATION = 'is required: an address, token or distinct_id, or an identity object';

/** `{"to": ...}`: an address, token or distinct_id, or an identity object (a Slack or web push identity) as a profile holds it. */
export const VendorTestBodySchema = managementSchemas.named(
  'VendorTestBody',
  Type.Object(
    {
      to: Type.Unsafe<string | Record<string, unknown>>({
        description: 'An email address, a phone number, a device token, a distinct_id (inbox), or an identity object as a profile holds it (Slack, Teams, web push)',
        if: { type: 'string' },
        then: { type: 'string', maxLength: 320, pattern: '\\S', 'x-message': 'must be 1 to 320 characters' },
        else: { type: 'object', 'x-check': 'vendor_test_identity', 'x-message': TEST_DESTINATION },
      }),
    },
    {
      additionalProperties: Type.Not(Type.Unknown(), { 'x-message': 'is not a field of a vendor test (to)' }),
      'x-message': 'the body must be a JSON object',
      'x-required-message': TEST_DESTINATION,
    },
  ),
);
export type VendorTestBody = Static<typeof VendorTestBodySchema>;

export const VENDOR_BODIES = {
  put: managementSchemas.parser(VendorBodySchema),
  test: managementSchemas.parser(VendorTestBodySchema),
} as const;

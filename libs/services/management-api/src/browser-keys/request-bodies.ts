import { Static, Type } from '@sinclair/typebox';
import { Nullable } from '@herald/contracts';
import { BoundedText, CheckedList } from '../http/settings-body-rules';
import { managementSchemas } from '../openapi/management-schemas';

/**
 * The bodies of `ws_public_key` (docs/architecture.md, "Contracts"): the handlers'
 * `@ValidBody` validates them, browser-keys-openapi.ts shows them. That a PATCH sets at
 * least one field is the handler's rule.
 */
const MAX_ORIGINS = 50;

const origins = Nullable(
  CheckedList(
    'browser_origins',
    'A browser origin: scheme, host and optional port (`https://app.example.com`)',
    'origin',
    { maxItems: MAX_ORIGINS, description: 'Browser origins allowed to call the inbox with this key (CORS); null or empty allows none' },
  ),
);

/** The reference's create body (name, description) plus Herald's `allowed_domains`: none by default, so a new key works from no web page until its origins are set. */
export const PublicKeyCreateSchema = managementSchemas.named(
  'PublicKeyCreate',
  Type.Object({ name: BoundedText(1, 64), description: Nullable(BoundedText(0, 500)), allowed_domains: origins }, { 'x-message': 'must be a JSON object' }),
);
export type PublicKeyCreate = Static<typeof PublicKeyCreateSchema>;

const SECURE_MODE_ONLY = 'can only be true: the browser inbox always requires a user token signed with the workspace signing key';

/**
 * The reference's PATCH (`is_secure_mode_enabled`), plus `allowed_domains`. Herald's inbox
 * always requires the signed user token, so secure mode can only be on: `false` is refused
 * rather than stored and ignored.
 */
export const PublicKeyPatchSchema = managementSchemas.named(
  'PublicKeyPatch',
  Type.Object(
    { is_secure_mode_enabled: Type.Optional(Type.Literal(true, { 'x-message': SECURE_MODE_ONLY })), allowed_domains: origins },
    { 'x-message': 'must be a JSON object', description: 'At least one field. `is_secure_mode_enabled: false` is refused (400).' },
  ),
);
export type PublicKeyPatch = Static<typeof PublicKeyPatchSchema>;

export const PUBLIC_KEY_BODIES = {
  create: managementSchemas.parser(PublicKeyCreateSchema),
  patch: managementSchemas.parser(PublicKeyPatchSchema),
} as const;

import { Static, Type } from '@sinclair/typebox';
import { Nullable } from '@herald/contracts';
import { BoundedText, CheckedList } from '../http/settings-body-rules';
import { managementSchemas } from '../openapi/management-schemas';

/** The body of `POST /v1/{workspace}/ws_key/` (docs/architecture.md, "Contracts"): the handler's `@ValidBody` validates it, management-openapi.ts shows it. */
export const WorkspaceKeyCreateSchema = managementSchemas.named(
  'WorkspaceKeyCreate',
  Type.Object(
    {
      name: BoundedText(1, 64),
      allowed_domains: Nullable(CheckedList('each_domain', 'A domain: a string of 1 to 253 characters', 'domain', { maxItems: 50 })),
    },
    { 'x-message': 'must be a JSON object' },
  ),
);
export type WorkspaceKeyCreate = Static<typeof WorkspaceKeyCreateSchema>;

export const WORKSPACE_KEY_BODIES = { create: managementSchemas.parser(WorkspaceKeyCreateSchema) } as const;

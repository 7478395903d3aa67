import { Static, Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '@herald/contracts';
import { BoundedText } from '../http/settings-body-rules';
import { managementSchemas } from '../openapi/management-schemas';

/** The body of `POST /v1/workspace/` (docs/architecture.md, "Contracts"): the handler's `@ValidBody` validates it, management-openapi.ts shows it. */
export const WorkspaceCreateSchema = managementSchemas.named(
  'WorkspaceCreate',
  Type.Object(
    {
      name: BoundedText(1, 64),
      slug: Nullable(
        Type.String({ pattern: '^[a-z0-9-_]{1,64}$', 'x-message': 'must match ^[a-z0-9-_]{1,64}$', description: 'Defaults to the name, lower-cased with other characters turned into dashes' }),
      ),
      description: Nullable(BoundedText(0, 500)),
      mode: Nullable(StringEnum(['sandbox', 'production'], { description: 'sandbox by default' })),
    },
    { 'x-message': 'must be a JSON object' },
  ),
);
export type WorkspaceCreate = Static<typeof WorkspaceCreateSchema>;

export const WORKSPACE_BODIES = { create: managementSchemas.parser(WorkspaceCreateSchema) } as const;

/** The slug a workspace created without one gets: its name, lower-cased with other characters turned into dashes. */
export function slugOf(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9-_]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
}

import { Static, Type } from '@sinclair/typebox';
import { Nullable, StringEnum, SUPPRESSION_REASONS } from '@herald/contracts';
import { BoundedText } from '../http/settings-body-rules';
import { managementSchemas } from '../openapi/management-schemas';
import { SUPPRESSIBLE_CHANNELS } from './suppression.repository';

/**
 * The body of `POST /v1/{workspace}/suppression/` (docs/architecture.md, "Contracts"): the
 * handler's `@ValidBody` validates it, suppressions-openapi.ts shows it. Whether the
 * address is one of the channel's is the handler's rule. `manual` by default; `hard_bounce`
 * or `complaint` when importing what another system learnt.
 */
export const SuppressionCreateSchema = managementSchemas.named(
  'SuppressionCreate',
  Type.Object(
    {
      channel: StringEnum(SUPPRESSIBLE_CHANNELS),
      address: BoundedText(1, 320, { description: 'An email address, or a phone number in international form' }),
      reason: Nullable(StringEnum(SUPPRESSION_REASONS, { default: 'manual', description: 'manual by default; hard_bounce or complaint to import what another system learnt' })),
      detail: Nullable(BoundedText(0, 500, { description: "The operator's note" })),
    },
    { 'x-message': 'must be a JSON object' },
  ),
);
export type SuppressionCreate = Static<typeof SuppressionCreateSchema>;

export const SUPPRESSION_BODIES = { add: managementSchemas.parser(SuppressionCreateSchema) } as const;

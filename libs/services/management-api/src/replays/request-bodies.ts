import { Static, Type } from '@sinclair/typebox';
import { FormattedString, MAX_REPLAY_RUNS, StringEnum } from '@herald/contracts';
import { managementSchemas, optionalBody } from '../openapi/management-schemas';

/**
 * The request body of `POST /v1/{workspace}/workflow/{slug}/replay/` (docs/architecture.md,
 * "Contracts"): the handler's `@ValidBody` validates with it and management-openapi.ts shows
 * it. Its rules between fields (version or definition, not both; to after from) stay code.
 */

const VERSION_MESSAGE = 'must be "draft", "live" or a version number';

export const ReplayBodySchema = managementSchemas.named(
  'ReplayBody',
  Type.Object(
    {
      version: Type.Optional(
        Type.Union([StringEnum(['draft', 'live'] as const, { 'x-message': VERSION_MESSAGE }), Type.Integer({ minimum: 1, 'x-message': VERSION_MESSAGE })], {
          description: 'The draft, the live version or a version number',
        }),
      ),
      definition: Type.Optional(
        Type.Object(
          {},
          {
            'x-message': 'must be a workflow definition object',
            description: 'A workflow definition given inline (as POST .../workflow/{slug}/ takes it) instead of `version`; validated as a commit would be',
          },
        ),
      ),
      from: Type.Optional(FormattedString('date-time', { description: 'Runs started at or after' })),
      to: Type.Optional(FormattedString('date-time', { description: 'Runs started before' })),
      recipients: Type.Optional(
        Type.Array(Type.String({ minLength: 1, 'x-message': 'must be a non-empty string' }), {
          maxItems: 1000,
          'x-message': 'must be an array of at most 1000 distinct_ids',
          description: 'Only runs of these distinct_ids',
        }),
      ),
      count: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: MAX_REPLAY_RUNS,
          'x-message': `must be an integer from 1 to ${MAX_REPLAY_RUNS}`,
          description: 'The newest this many matching runs (default 100)',
        }),
      ),
    },
    {
      'x-message': 'the body must be a JSON object',
      description: 'Which definition to replay recorded runs against (default: the draft), and which runs (the newest `count` matching). No body: the draft, the newest 100 runs.',
    },
  ),
);
export type ReplayBody = Static<typeof ReplayBodySchema>;

export const REPLAY_BODIES = {
  start: optionalBody(managementSchemas.parser(ReplayBodySchema)),
} as const;

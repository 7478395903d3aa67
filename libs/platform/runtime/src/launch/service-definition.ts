import { DynamicModule } from '@nestjs/common';
import type { OpenApiFragment } from '../http/openapi';

export type ServiceName = 'ingest-api' | 'workflow-engine' | 'preference-service' | 'management-api' | 'channel-dispatchers';

/**
 * How a launcher runs a service: its Nest module, and which HTTP API it belongs
 * to. `public` services serve `{base_url}`, `management` serves `{management_url}`,
 * `internal` ones serve only health and metrics (on the `{base_url}` port).
 */
export interface ServiceDefinition {
  readonly name: ServiceName;
  readonly api: 'public' | 'management' | 'internal';
  module(): DynamicModule;
  /** The part of its API's `/openapi.json` this service serves. */
  readonly openApi?: OpenApiFragment;
}

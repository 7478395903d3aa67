import { SchemaOutboxRelay } from '@herald/runtime';

/** Publishes what preference-service wrote to its outbox (every audience change). */
export class AudienceOutboxRelay extends SchemaOutboxRelay('audience') {}

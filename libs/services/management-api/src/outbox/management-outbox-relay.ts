import { SchemaOutboxRelay } from '@herald/runtime';

/** Publishes what management-api wrote to its outbox (credentials and definition changes). */
export class ManagementOutboxRelay extends SchemaOutboxRelay('management') {}

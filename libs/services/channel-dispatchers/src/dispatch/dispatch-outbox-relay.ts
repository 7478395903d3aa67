import { SchemaOutboxRelay } from '@herald/runtime';

/** Publishes delivery outcomes written to `dispatch.outbox` with the ledger's final state. */
export class DispatchOutboxRelay extends SchemaOutboxRelay('dispatch') {}

import { EntitySchema } from 'typeorm';
import { DEFINITION_ENTITIES } from '../read-models/definition.repository';

/** Who a run or a message is for: a user by distinct id, or an object by type and id. */
interface RecipientColumns {
  recipientType: 'user' | 'object';
  distinctId: string | null;
  objectType: string | null;
  objectId: string | null;
}

/** A run in `engine.runs`, the index of runs the run projection keeps in the append's transaction. */
export interface IndexedRun extends RecipientColumns {
  runId: string;
  workspaceId: string;
  streamId: string;
  /** The trigger's message id (POST /trigger/'s answer), or a broadcast's. */
  messageId: string;
  workflowSlug: string;
  workflowVersion: number;
  tenantId: string | null;
  idempotencyKey: string | null;
  status: string;
  /** Why a run ended without sending, when it did. */
  outcomeReason: string | null;
  startedAt: Date;
  updatedAt: Date;
}

/** A message in `engine.messages`, the message log: a delivery, or a channel a send node skipped. */
export interface LoggedMessage extends RecipientColumns {
  deliveryId: string;
  workspaceId: string;
  runId: string;
  messageId: string;
  workflowSlug: string;
  workflowVersion: number;
  nodeName: string;
  channel: string;
  tenantId: string | null;
  category: string | null;
  idempotencyKey: string | null;
  templateSlug: string;
  channelIdentity: Record<string, unknown>;
  status: string;
  failureReason: string | null;
  vendor: string | null;
  attempts: number | null;
  nextAttemptAt: Date | null;
  warnings: unknown[] | null;
  createdAt: Date;
  updatedAt: Date;
  triggeredAt: Date | null;
  deliveredAt: Date | null;
  seenAt: Date | null;
  clickedAt: Date | null;
}

const recipientColumns = {
  recipientType: { name: 'recipient_type', type: 'text' },
  distinctId: { name: 'distinct_id', type: 'text', nullable: true },
  objectType: { name: 'object_type', type: 'text', nullable: true },
  objectId: { name: 'object_id', type: 'text', nullable: true },
} as const;

/** `engine.runs` (created by the migrations, never by TypeORM; written by the run projection's SQL). */
export const IndexedRunEntity = new EntitySchema<IndexedRun>({
  name: 'IndexedRun',
  schema: 'engine',
  tableName: 'runs',
  columns: {
    runId: { name: 'run_id', type: 'text', primary: true },
    workspaceId: { name: 'workspace_id', type: 'uuid' },
    streamId: { name: 'stream_id', type: 'text' },
    messageId: { name: 'message_id', type: 'text' },
    workflowSlug: { name: 'workflow_slug', type: 'text' },
    workflowVersion: { name: 'workflow_version', type: 'integer' },
    ...recipientColumns,
    tenantId: { name: 'tenant_id', type: 'text', nullable: true },
    idempotencyKey: { name: 'idempotency_key', type: 'text', nullable: true },
    status: { type: 'text' },
    outcomeReason: { name: 'outcome_reason', type: 'text', nullable: true },
    startedAt: { name: 'started_at', type: 'timestamptz' },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
  },
});

/** `engine.messages` (created by the migrations; written by the run projection's SQL). */
export const LoggedMessageEntity = new EntitySchema<LoggedMessage>({
  name: 'LoggedMessage',
  schema: 'engine',
  tableName: 'messages',
  columns: {
    deliveryId: { name: 'delivery_id', type: 'text', primary: true },
    workspaceId: { name: 'workspace_id', type: 'uuid' },
    runId: { name: 'run_id', type: 'text' },
    messageId: { name: 'message_id', type: 'text' },
    workflowSlug: { name: 'workflow_slug', type: 'text' },
    workflowVersion: { name: 'workflow_version', type: 'integer' },
    nodeName: { name: 'node_name', type: 'text' },
    channel: { type: 'text' },
    ...recipientColumns,
    tenantId: { name: 'tenant_id', type: 'text', nullable: true },
    category: { type: 'text', nullable: true },
    idempotencyKey: { name: 'idempotency_key', type: 'text', nullable: true },
    templateSlug: { name: 'template_slug', type: 'text' },
    channelIdentity: { name: 'channel_identity', type: 'jsonb' },
    status: { type: 'text' },
    failureReason: { name: 'failure_reason', type: 'text', nullable: true },
    vendor: { type: 'text', nullable: true },
    attempts: { type: 'integer', nullable: true },
    nextAttemptAt: { name: 'next_attempt_at', type: 'timestamptz', nullable: true },
    warnings: { type: 'jsonb', nullable: true },
    createdAt: { name: 'created_at', type: 'timestamptz' },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
    triggeredAt: { name: 'triggered_at', type: 'timestamptz', nullable: true },
    deliveredAt: { name: 'delivered_at', type: 'timestamptz', nullable: true },
    seenAt: { name: 'seen_at', type: 'timestamptz', nullable: true },
    clickedAt: { name: 'clicked_at', type: 'timestamptz', nullable: true },
  },
});

/**
 * The tables workflow-engine reads through TypeORM's repositories (the HTTP side: runs and
 * the message log; the definitions read model's cold reads and writes). Registered with its
 * DataSource for their column mappings only; the hot path writes runs and messages with its
 * own SQL in the append's transaction (run-projection.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- EntitySchema's parameter differs per table
export const ENGINE_ENTITIES: EntitySchema<any>[] = [IndexedRunEntity, LoggedMessageEntity, ...DEFINITION_ENTITIES];

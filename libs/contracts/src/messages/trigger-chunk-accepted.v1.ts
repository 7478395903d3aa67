import { Type } from '@sinclair/typebox';
import { Envelope, FieldError, ParseResult } from '../envelope';
import { deterministicUuid } from '../ids';
import { AcceptedViaSchema, Contract, JsonRecordSchema, NonEmptyString, OptionalString, messageSchemas } from './message-schemas';
import { TRIGGER_ACCEPTED_TYPE, TRIGGER_ACCEPTED_VERSION, TriggerAccepted } from './trigger-accepted.v1';
import { AttachmentMessage, InlineWorkflowMessage, RecipientMessage, UserRecipientMessage } from './trigger-payload';

/**
 * `notify.trigger.chunk_accepted.v1`: one validated trigger for SEVERAL of its recipients,
 * published by ingest-api. A trigger's recipients are grouped by the partition their
 * own key (`workspace:recipient`) falls on, and each group (at most
 * `MAX_CHUNK_RECIPIENTS`, and within the bus's message size) is one chunk keyed by the
 * key of its first recipient: every recipient of a chunk is therefore on the partition
 * a per-recipient message would have taken, and a recipient's triggers stay in order.
 * The engine expands a chunk into the per-recipient `TriggerAccepted` inputs
 * (`expandTriggerChunk`), with the ids a per-recipient message would have carried, so a
 * chunk and a per-recipient message of the same trigger and recipient start one run.
 *
 * Why a chunk: a Kafka record costs the producer 25 to 48 µs of CPU whatever its size,
 * so one record per recipient capped ingest at about 40,000 recipients/s per core.
 * `notify.trigger.accepted.v1` stays for the producers of one run at a time (the
 * engine's child runs, preference-service's broadcast fan-out) and for a rolling upgrade.
 */
export const TRIGGER_CHUNK_ACCEPTED_TYPE = 'trigger.chunk_accepted';
export const TRIGGER_CHUNK_ACCEPTED_VERSION = 1;
/** Recipients in one chunk at most: a trigger holds at most 100, so a chunk never splits for count alone. */
export const MAX_CHUNK_RECIPIENTS = 100;

export const ChunkRecipientMessage = Type.Object({
  /** The recipient's position in the trigger: its run id derives from the trigger's id and this. */
  index: Type.Integer({ minimum: 0 }),
  recipient: RecipientMessage,
});
export type ChunkRecipient = Contract<typeof ChunkRecipientMessage>;

export const TriggerChunkAcceptedMessage = Type.Object({
  /** The trigger's id, as returned to the client (`message_id`). */
  message_id: NonEmptyString(),
  /** Recipients of the whole trigger (the chunk holds some of them). */
  recipient_count: Type.Integer({ minimum: 1, 'x-message': 'must be an integer of at least 1' }),
  workspace_slug: NonEmptyString(),
  workflow: NonEmptyString(),
  recipients: Type.Array(ChunkRecipientMessage, { minItems: 1, maxItems: MAX_CHUNK_RECIPIENTS, 'x-message': `must be an array of 1 to ${MAX_CHUNK_RECIPIENTS} recipients` }),
  actor: Type.Optional(UserRecipientMessage),
  data: JsonRecordSchema,
  attachments: Type.Array(AttachmentMessage),
  tenant_id: OptionalString(),
  idempotency_key: OptionalString(),
  accepted_via: AcceptedViaSchema,
  accepted_at: NonEmptyString(),
  /** A legacy dynamic-workflow trigger's own definition (see TriggerAccepted). */
  inline_workflow: Type.Optional(InlineWorkflowMessage),
});
export type TriggerChunkAccepted = Contract<typeof TriggerChunkAcceptedMessage>;

/**
 * The run id (and per-recipient message id) of a trigger's recipient: the same whether
 * the recipient travelled alone or in a chunk, so a republish dedupes either way.
 */
export function triggerRecipientId(triggerMessageId: string, recipientIndex: number): string {
  return deterministicUuid(triggerMessageId, String(recipientIndex));
}

/** Chunk envelope ids: one per (trigger, first recipient), stable across republishes. */
export function triggerChunkId(triggerMessageId: string, firstRecipientIndex: number): string {
  return deterministicUuid(triggerMessageId, 'chunk', String(firstRecipientIndex));
}

const chunkParser = messageSchemas.parser(TriggerChunkAcceptedMessage, 'payload');

/** The schema, and what it cannot say: each index within the trigger's recipients, and none twice. */
export function parseTriggerChunkAccepted(payload: unknown): ParseResult<TriggerChunkAccepted> {
  const parsed = chunkParser.parse(payload);
  if (!parsed.ok) return parsed;
  const errors: FieldError[] = [];
  const seen = new Set<number>();
  parsed.value.recipients.forEach(({ index }, i) => {
    const path = `payload.recipients[${i}].index`;
    if (index >= parsed.value.recipient_count) errors.push({ path, message: `must be an integer from 0 to ${parsed.value.recipient_count - 1}` });
    else if (seen.has(index)) errors.push({ path, message: 'must not repeat another recipient of the chunk' });
    else seen.add(index);
  });
  return errors.length > 0 ? { ok: false, errors } : parsed;
}

/**
 * The per-recipient inputs a chunk stands for, in the chunk's order: each the envelope
 * ingest would have published on `notify.trigger.accepted.v1` for that recipient
 * (same id, type, time and payload).
 */
export function expandTriggerChunk(chunk: Envelope<TriggerChunkAccepted>): Array<Envelope<TriggerAccepted>> {
  const { recipients, ...trigger } = chunk.payload;
  return recipients.map(({ index, recipient }) => {
    const id = triggerRecipientId(trigger.message_id, index);
    const payload: TriggerAccepted = {
      message_id: trigger.message_id,
      recipient_index: index,
      recipient_count: trigger.recipient_count,
      workspace_slug: trigger.workspace_slug,
      workflow: trigger.workflow,
      recipient,
      actor: trigger.actor,
      data: trigger.data,
      attachments: trigger.attachments,
      tenant_id: trigger.tenant_id,
      idempotency_key: trigger.idempotency_key,
      accepted_via: trigger.accepted_via,
      accepted_at: trigger.accepted_at,
      inline_workflow: trigger.inline_workflow,
    };
    return {
      type: TRIGGER_ACCEPTED_TYPE,
      schema_version: TRIGGER_ACCEPTED_VERSION,
      message_id: id,
      workspace_id: chunk.workspace_id,
      produced_at: chunk.produced_at,
      payload: withoutUndefined(payload),
    };
  });
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

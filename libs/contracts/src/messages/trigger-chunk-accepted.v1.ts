import { Envelope, ParseResult } from '../envelope';
import { deterministicUuid } from '../ids';
import { PayloadChecks } from './message-fields';
import { AcceptedVia, TRIGGER_ACCEPTED_TYPE, TRIGGER_ACCEPTED_VERSION, TriggerAccepted } from './trigger-accepted.v1';
import { Attachment, JsonRecord, Recipient, UserRecipient } from './trigger-payload';

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

export interface ChunkRecipient {
  /** The recipient's position in the trigger: its run id derives from the trigger's id and this. */
  readonly index: number;
  readonly recipient: Recipient;
}

export interface TriggerChunkAccepted {
  /** The trigger's id, as returned to the client (`message_id`). */
  readonly message_id: string;
  /** Recipients of the whole trigger (the chunk holds some of them). */
  readonly recipient_count: number;
  readonly workspace_slug: string;
  readonly workflow: string;
  readonly recipients: readonly ChunkRecipient[];
  readonly actor?: UserRecipient;
  readonly data: JsonRecord;
  readonly attachments: readonly Attachment[];
  readonly tenant_id?: string;
  readonly idempotency_key?: string;
  readonly accepted_via: AcceptedVia;
  readonly accepted_at: string;
  /** A legacy dynamic-workflow trigger's own definition (see TriggerAccepted). */
  readonly inline_workflow?: { readonly slug: string; readonly version: number; readonly definition: JsonRecord };
}

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

export function parseTriggerChunkAccepted(payload: unknown): ParseResult<TriggerChunkAccepted> {
  const checks = PayloadChecks.of(payload);
  ['message_id', 'workspace_slug', 'workflow', 'accepted_at'].forEach((f) => checks.string(f));
  checks.string('tenant_id', { optional: true });
  checks.string('idempotency_key', { optional: true });
  checks.object('inline_workflow', { optional: true });
  checks.integer('recipient_count', 1);
  checks.object('actor', { optional: true });
  checks.object('data');
  checks.oneOf('accepted_via', ['api', 'kafka']);
  if (checks.errors.length > 0) return { ok: false, errors: checks.errors };
  const value = payload as TriggerChunkAccepted;
  if (!Array.isArray(value.attachments)) checks.errors.push({ path: 'payload.attachments', message: 'must be an array' });
  if (!Array.isArray(value.recipients) || value.recipients.length === 0 || value.recipients.length > MAX_CHUNK_RECIPIENTS) {
    checks.errors.push({ path: 'payload.recipients', message: `must be an array of 1 to ${MAX_CHUNK_RECIPIENTS} recipients` });
    return { ok: false, errors: checks.errors };
  }
  const seen = new Set<number>();
  value.recipients.forEach((entry: unknown, i) => {
    const path = `payload.recipients[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      checks.errors.push({ path, message: 'must be an object' });
      return;
    }
    const { index, recipient } = entry as Partial<ChunkRecipient>;
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= value.recipient_count) {
      checks.errors.push({ path: `${path}.index`, message: `must be an integer from 0 to ${value.recipient_count - 1}` });
    } else if (seen.has(index as number)) {
      checks.errors.push({ path: `${path}.index`, message: 'must not repeat another recipient of the chunk' });
    } else seen.add(index as number);
    if (typeof recipient !== 'object' || recipient === null || Array.isArray(recipient)) checks.errors.push({ path: `${path}.recipient`, message: 'must be an object' });
    else if (!['user', 'object'].includes((recipient as { kind?: unknown }).kind as string)) {
      checks.errors.push({ path: `${path}.recipient.kind`, message: 'must be user or object' });
    }
  });
  return checks.errors.length > 0 ? { ok: false, errors: checks.errors } : { ok: true, value };
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

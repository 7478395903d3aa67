import { Envelope } from '../envelope';

/** Builds an envelope; the id and the time come from the caller (no clock or randomness here). */
export function envelopeOf<T>(type: string, schemaVersion: number, messageId: string, workspaceId: string, producedAt: Date, payload: T): Envelope<T> {
  return {
    type,
    schema_version: schemaVersion,
    message_id: messageId,
    workspace_id: workspaceId,
    produced_at: producedAt.toISOString(),
    payload,
  };
}

/** A keyed bus message carrying one envelope. */
export interface EnvelopeMessage {
  readonly key: string;
  /** The envelope's JSON. */
  readonly value: string;
  readonly headers: Record<string, string>;
}

/**
 * The bus message of an envelope, keyed by `key`: its JSON as the value and its id as the
 * `message-id` header, which consumers dedupe by, beside any further `headers` (which
 * cannot replace it).
 */
export function envelopeMessage(key: string, envelope: Envelope<unknown>, headers?: Readonly<Record<string, string>>): EnvelopeMessage {
  return { key, value: JSON.stringify(envelope), headers: headersOf(envelope, headers) };
}

function headersOf(envelope: Envelope<unknown>, headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return headers === undefined ? { 'message-id': envelope.message_id } : { ...headers, 'message-id': envelope.message_id };
}

/** An envelope's message for `topic` as a service's outbox holds it (event-store's OutboxMessage). */
export interface EnvelopeOutboxMessage extends EnvelopeMessage {
  /** The envelope's id: the outbox dedupes its pending rows by it. */
  readonly messageId: string;
  readonly topic: string;
}

/** The outbox row of an envelope for `topic`, keyed by `key`, as envelopeMessage builds it. */
export function outboxMessageOf(topic: string, key: string, envelope: Envelope<unknown>, headers?: Readonly<Record<string, string>>): EnvelopeOutboxMessage {
  // Built whole, not spread from envelopeMessage's: this runs once per delivery command and outcome.
  return { messageId: envelope.message_id, topic, key, value: JSON.stringify(envelope), headers: headersOf(envelope, headers) };
}

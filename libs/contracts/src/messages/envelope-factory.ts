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

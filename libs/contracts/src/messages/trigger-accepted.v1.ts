import { Type } from '@sinclair/typebox';
import { ParseResult } from '../envelope';
import { AcceptedViaSchema, Contract, JsonRecordSchema, NonEmptyString, OptionalString, messageSchemas } from './message-schemas';
import { AttachmentMessage, InlineWorkflowMessage, RecipientMessage, UserRecipientMessage } from './trigger-payload';

/**
 * `notify.trigger.accepted.v1`: one validated trigger for ONE recipient, published by
 * ingest-api (REST and the Kafka ingress) and keyed `workspace:recipient`. A trigger
 * of 100 recipients is 100 of these, each an independent run. The envelope's
 * message_id is `deterministicUuid(message_id, recipient_index)`, so a republished
 * trigger (a retried idempotent request, a redelivered ingress message) carries the
 * same ids and starts nothing twice.
 */
export const TRIGGER_ACCEPTED_TYPE = 'trigger.accepted';
export const TRIGGER_ACCEPTED_VERSION = 1;

export type AcceptedVia = Contract<typeof AcceptedViaSchema>;

export const TriggerAcceptedMessage = Type.Object({
  /** The trigger's id, as returned to the client (`message_id`). */
  message_id: NonEmptyString(),
  recipient_index: Type.Integer({ minimum: 0, 'x-message': 'must be an integer of at least 0' }),
  recipient_count: Type.Integer({ minimum: 1, 'x-message': 'must be an integer of at least 1' }),
  workspace_slug: NonEmptyString(),
  workflow: NonEmptyString(),
  recipient: RecipientMessage,
  actor: Type.Optional(UserRecipientMessage),
  data: JsonRecordSchema,
  attachments: Type.Array(AttachmentMessage),
  tenant_id: OptionalString(),
  idempotency_key: OptionalString(),
  accepted_via: AcceptedViaSchema,
  accepted_at: NonEmptyString(),
  /**
   * Set by the engine for a run it starts on behalf of another: one recipient of an
   * object's subscribers, or of a `override_recipients_*` expression. Such a run does not
   * apply the workflow's overrides again (and does not fan out again).
   */
  parent_run_id: OptionalString(),
  /**
   * Set by preference-service for a broadcast to a list: the run follows this definition
   * instead of a live workflow (a broadcast names a template, not a workflow).
   */
  inline_workflow: Type.Optional(InlineWorkflowMessage),
});
export type TriggerAccepted = Contract<typeof TriggerAcceptedMessage>;

const triggerAcceptedParser = messageSchemas.parser(TriggerAcceptedMessage, 'payload');

export function parseTriggerAccepted(payload: unknown): ParseResult<TriggerAccepted> {
  return triggerAcceptedParser.parse(payload);
}

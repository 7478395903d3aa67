import { DELIVERY_OUTCOME_TYPE, DeliveryOutcome, DeliveryRequested, TOPICS, deliveryOutcomeVersion, deterministicUuid, envelopeOf, outboxMessageOf } from '@herald/contracts';
import { OutboxMessage } from '@herald/event-store';

/** What an outcome says beyond the command it reports on. */
export type OutcomeFields = Pick<DeliveryOutcome, 'status' | 'vendor' | 'vendor_message_id' | 'error' | 'attempts' | 'next_attempt_at' | 'warnings' | 'vendor_event'>;

/**
 * A `delivery.outcome` for the outbox, keyed like its command (`workspace:recipient`).
 * Its id derives from the delivery and `idParts` (the final outcome has none, each
 * engagement kind its own), so a republish of the same fact is deduped downstream.
 */
export function outcomeMessage(
  delivery: { readonly command: DeliveryRequested; readonly workspaceId: string; readonly messageKey: string },
  fields: OutcomeFields,
  at: Date,
  ...idParts: string[]
): OutboxMessage {
  const { command } = delivery;
  const payload: DeliveryOutcome = {
    delivery_id: command.delivery_id,
    run_id: command.run_id,
    message_id: command.message_id,
    workspace_slug: command.workspace_slug,
    channel: command.channel,
    ...outcomeContext(command),
    ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
    status: fields.status,
    at: at.toISOString(),
  };
  const messageId = deterministicUuid('delivery-outcome', command.delivery_id, ...idParts);
  return outboxMessageOf(TOPICS.deliveryOutcome.name, delivery.messageKey, envelopeOf(DELIVERY_OUTCOME_TYPE, deliveryOutcomeVersion(fields.status), messageId, delivery.workspaceId, at, payload));
}

/** The command's workflow, template, category, tenant and recipient, as every outcome of it carries them. */
function outcomeContext(command: DeliveryRequested): Pick<DeliveryOutcome, 'workflow_slug' | 'template_slug' | 'category' | 'tenant_id' | 'recipient'> {
  const { kind, distinct_id, object_type, id } = command.recipient;
  return {
    workflow_slug: command.workflow.slug,
    template_slug: command.template.slug,
    ...(command.category === undefined ? {} : { category: command.category }),
    ...(command.tenant_id === undefined ? {} : { tenant_id: command.tenant_id }),
    recipient: kind === 'user' ? { kind, distinct_id } : { kind, object_type, id },
  };
}

import { randomUUID } from 'node:crypto';
import { DELIVERY_OUTCOME_TYPE, DeliveryOutcome, DeliveryStatus, deliveryOutcomeVersion, envelopeOf } from '@herald/contracts';

/** A `delivery.outcome` on the bus as channel-dispatchers publish it: for tests and benches of the status webhooks. */
export function outcomeOnTheBus(
  workspaceId: string,
  workflow: string,
  deliveryId: string,
  status: DeliveryStatus,
  at: Date,
  messageId = randomUUID(),
): { key: string; value: string; headers: Record<string, string> } {
  const outcome: DeliveryOutcome = {
    delivery_id: deliveryId,
    run_id: `run-${deliveryId}`,
    message_id: `msg-${deliveryId}`,
    workspace_slug: 'staging',
    channel: 'email',
    status,
    vendor: 'email/sendgrid',
    workflow_slug: workflow,
    template_slug: 'welcome-email',
    recipient: { kind: 'user', distinct_id: `user-${deliveryId}` },
    at: at.toISOString(),
  };
  return {
    key: `${workspaceId}:user-${deliveryId}`,
    value: JSON.stringify(envelopeOf(DELIVERY_OUTCOME_TYPE, deliveryOutcomeVersion(status), messageId, workspaceId, at, outcome)),
    headers: { 'message-id': messageId },
  };
}

import { Recipient, TRIGGER_ACCEPTED_TYPE, TRIGGER_ACCEPTED_VERSION, TriggerAccepted, deterministicUuid, envelopeMessage, envelopeOf, recipientKey } from '@herald/contracts';
import type { OutgoingMessage } from '@herald/bus';
import { LiveRun } from '@herald/workflow';

/**
 * Runs a run starts for other recipients: an object recipient's subscribers, or the
 * recipients an `override_recipients_*` expression computed. Each is an accepted
 * trigger for one recipient, keyed like it, carrying the parent's data, actor and
 * tenant, with `parent_run_id` (so it neither applies the overrides nor fans out again)
 * and an envelope id derived from the parent and the recipient, so publishing twice
 * (a redelivered parent input) starts each child once.
 */
export function childRunMessages(workspaceId: string, parent: LiveRun, recipients: readonly Recipient[], now: Date): OutgoingMessage[] {
  const { started } = parent;
  return recipients.map((recipient, index) => {
    const childKey = recipientKey(workspaceId, recipient, `${started.run_id}:${index}`);
    const id = deterministicUuid(started.run_id, 'child', childKey);
    const payload: TriggerAccepted = {
      message_id: started.message_id,
      recipient_index: index,
      recipient_count: recipients.length,
      workspace_slug: started.workspace_slug,
      workflow: started.workflow.slug,
      recipient,
      ...(parent.actor ? { actor: parent.actor } : {}),
      data: started.data,
      attachments: started.attachments,
      ...(parent.tenant_id ? { tenant_id: parent.tenant_id } : {}),
      ...(started.idempotency_key ? { idempotency_key: started.idempotency_key } : {}),
      accepted_via: 'api',
      accepted_at: now.toISOString(),
      parent_run_id: started.run_id,
    };
    return envelopeMessage(childKey, envelopeOf(TRIGGER_ACCEPTED_TYPE, TRIGGER_ACCEPTED_VERSION, id, workspaceId, now, payload));
  });
}

import {
  AUDIENCE_CHANGED_TYPE,
  TRIGGER_ACCEPTED_TYPE,
  TRIGGER_ACCEPTED_VERSION,
  TriggerAccepted,
  deterministicUuid,
  envelopeOf,
  parseAudienceChanged,
  parseEnvelope,
  parseTriggerAccepted,
  recipientKey,
} from '@herald/contracts';
import { validateTrigger } from '../validation';
import { SeededRandom } from '../validation/testing/seeded-random';
import { randomValidTrigger } from '../validation/testing/valid-generators';
import { identityMessages, triggerMessages } from './accepted-messages';

/**
 * triggerMessages serialises the parts its messages share once per trigger and splices
 * each value together. It must give exactly what serialising each message's envelope
 * whole gives (the plain way below), for any valid trigger.
 */
describe('triggerMessages', () => {
  const workspace = { id: '0b9f6c52-3f43-4c1e-9d8e-4f1b2a3c4d5e', slug: 'staging' };
  const now = new Date('2026-11-21T08:00:00.123Z');

  it('builds each value byte for byte as JSON.stringify(envelopeOf(...)) of the whole payload', () => {
    let compared = 0;
    for (let seed = 1; seed <= 400; seed += 1) {
      const rng = new SeededRandom(seed);
      const validated = validateTrigger(JSON.parse(JSON.stringify(randomValidTrigger(rng))));
      if (!validated.ok) throw new Error(`seed ${seed}: the generator made an invalid trigger: ${JSON.stringify(validated.errors)}`);
      const trigger = validated.value;
      const messageId = deterministicUuid('trigger', String(seed));
      const via = seed % 2 === 0 ? 'api' : 'kafka';
      const messages = triggerMessages(workspace, trigger, messageId, via, now);

      const expected = trigger.recipients.map((recipient, index) => {
        const payload: TriggerAccepted = {
          message_id: messageId,
          recipient_index: index,
          recipient_count: trigger.recipients.length,
          workspace_slug: workspace.slug,
          workflow: trigger.workflow,
          recipient,
          actor: trigger.actor,
          data: trigger.data,
          attachments: trigger.attachments,
          tenant_id: trigger.tenant_id,
          idempotency_key: trigger.idempotency_key,
          accepted_via: via,
          accepted_at: now.toISOString(),
        };
        const id = deterministicUuid(messageId, String(index));
        return {
          key: recipientKey(workspace.id, recipient, id),
          value: JSON.stringify(envelopeOf(TRIGGER_ACCEPTED_TYPE, TRIGGER_ACCEPTED_VERSION, id, workspace.id, now, payload)),
          headers: { 'message-id': id, 'trigger-message-id': messageId },
        };
      });
      expect([seed, messages.accepted]).toEqual([seed, expected]);
      compared += expected.length;
    }
    expect(compared).toBeGreaterThan(1_000);
  });

  it('gives values that parse as trigger.accepted envelopes', () => {
    const validated = validateTrigger({ workflow: 'welcome', recipients: ['a', { distinct_id: 'b', $email: 'b@example.com' }], data: { x: 'é"\\' } });
    if (!validated.ok) throw new Error('invalid');
    const messages = triggerMessages(workspace, validated.value, deterministicUuid('t'), 'api', now);
    for (const [index, message] of messages.accepted.entries()) {
      const envelope = parseEnvelope(Buffer.from(message.value));
      expect(envelope.ok).toBe(true);
      if (!envelope.ok) continue;
      expect(envelope.value).toMatchObject({ type: TRIGGER_ACCEPTED_TYPE, schema_version: TRIGGER_ACCEPTED_VERSION, message_id: message.headers?.['message-id'] });
      const payload = parseTriggerAccepted(envelope.value.payload);
      expect(payload.ok).toBe(true);
      expect(envelope.value.payload).toMatchObject({ recipient_index: index, recipient_count: 2, data: { x: 'é"\\' } });
    }
  });
});

describe('identityMessages', () => {
  const workspace = { id: '0b9f6c52-3f43-4c1e-9d8e-4f1b2a3c4d5e', slug: 'staging' };
  const now = new Date('2026-11-21T08:00:00.123Z');

  it('is one user_operations change keyed by the user, with ids derived from the request, and nothing to run', () => {
    const messageId = '5d1c8e0e-6a43-4f7a-9f0e-0c1a2b3c4d5e';
    const operations = [{ $set: { name: 'Ada' } }, { $append: { $email: ['ada@example.com'] } }];
    const messages = identityMessages(workspace, { distinct_id: 'u-1', operations, tenant_id: 'acme' }, messageId, now);
    expect(messages.accepted).toEqual([]);
    expect(messages.audience).toHaveLength(1);
    const [message] = messages.audience;
    const id = deterministicUuid(messageId, 'user_operations');
    expect(message.key).toBe(`${workspace.id}:u-1`);
    expect(message.headers).toEqual({ 'message-id': id });
    const envelope = parseEnvelope(Buffer.from(message.value));
    expect(envelope.ok && envelope.value).toMatchObject({ type: AUDIENCE_CHANGED_TYPE, message_id: id, workspace_id: workspace.id });
    const payload = envelope.ok ? parseAudienceChanged(envelope.value.payload) : undefined;
    expect(payload).toEqual({
      ok: true,
      value: { kind: 'user_operations', workspace_slug: 'staging', distinct_id: 'u-1', tenant_id: 'acme', operations, source_message_id: messageId },
    });
    // The same request builds the same message: a republish is recognised downstream.
    expect(identityMessages(workspace, { distinct_id: 'u-1', operations, tenant_id: 'acme' }, messageId, now)).toEqual(messages);
  });
});

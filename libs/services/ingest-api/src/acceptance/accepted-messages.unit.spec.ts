import {
  AUDIENCE_CHANGED_TYPE,
  Envelope,
  MAX_CHUNK_RECIPIENTS,
  TRIGGER_ACCEPTED_TYPE,
  TRIGGER_ACCEPTED_VERSION,
  TRIGGER_CHUNK_ACCEPTED_TYPE,
  TRIGGER_CHUNK_ACCEPTED_VERSION,
  TriggerAccepted,
  TriggerChunkAccepted,
  deterministicUuid,
  envelopeOf,
  expandTriggerChunk,
  parseAudienceChanged,
  parseEnvelope,
  parseTriggerChunkAccepted,
  recipientKey,
  triggerChunkId,
} from '@herald/contracts';
import { RECORD_BATCH_OVERHEAD, partitionFor, recordBytes } from '@herald/bus';
import { NormalisedTrigger } from '@herald/contracts';
import { validateTrigger } from '../validation';
import { SeededRandom } from '../validation/testing/seeded-random';
import { randomValidTrigger } from '../validation/testing/valid-generators';
import { identityMessages, triggerMessages } from './accepted-messages';

const roomy = (partitions: number) => ({ partitions, maxMessageBytes: 1_048_588 });

function randomTrigger(seed: number): NormalisedTrigger {
  const validated = validateTrigger(JSON.parse(JSON.stringify(randomValidTrigger(new SeededRandom(seed)))));
  if (!validated.ok) throw new Error(`seed ${seed}: the generator made an invalid trigger: ${JSON.stringify(validated.errors)}`);
  return validated.value;
}

/** What ingest published before chunks: one envelope per recipient, serialised whole. */
function perRecipientMessages(workspace: { id: string; slug: string }, trigger: NormalisedTrigger, messageId: string, via: 'api' | 'kafka', now: Date) {
  return trigger.recipients.map((recipient, index) => {
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
    return { key: recipientKey(workspace.id, recipient, id), value: JSON.stringify(envelopeOf(TRIGGER_ACCEPTED_TYPE, TRIGGER_ACCEPTED_VERSION, id, workspace.id, now, payload)) };
  });
}

function chunkOf(value: string | Buffer): Envelope<TriggerChunkAccepted> {
  const envelope = parseEnvelope(value, TRIGGER_CHUNK_ACCEPTED_TYPE);
  if (!envelope.ok) throw new Error(JSON.stringify(envelope.errors));
  const payload = parseTriggerChunkAccepted(envelope.value.payload);
  if (!payload.ok) throw new Error(JSON.stringify(payload.errors));
  return { ...envelope.value, payload: payload.value };
}

/**
 * triggerMessages serialises the parts its chunks share once per trigger and splices
 * each value together. It must give exactly what serialising each chunk's envelope
 * whole gives (the plain way below), for any valid trigger; and the engine, expanding
 * the chunks, must get exactly the per-recipient messages ingest published before.
 */
describe('triggerMessages', () => {
  const workspace = { id: '0b9f6c52-3f43-4c1e-9d8e-4f1b2a3c4d5e', slug: 'staging' };
  const now = new Date('2026-11-21T08:00:00.123Z');

  it('builds each chunk byte for byte as JSON.stringify(envelopeOf(...)) of recipients grouped by their partition', () => {
    let compared = 0;
    for (let seed = 1; seed <= 400; seed += 1) {
      const trigger = randomTrigger(seed);
      const messageId = deterministicUuid('trigger', String(seed));
      const via = seed % 2 === 0 ? 'api' : 'kafka';
      const partitions = 1 + (seed % 12);
      const messages = triggerMessages(workspace, trigger, messageId, via, now, roomy(partitions));

      const groups = new Map<number, number[]>();
      trigger.recipients.forEach((recipient, index) => {
        const partition = partitionFor('', recipientKey(workspace.id, recipient, deterministicUuid(messageId, String(index))), partitions);
        groups.set(partition, [...(groups.get(partition) ?? []), index]);
      });
      const expected = [...groups.values()].map((indexes) => {
        const first = trigger.recipients[indexes[0]];
        const payload: TriggerChunkAccepted = {
          message_id: messageId,
          recipient_count: trigger.recipients.length,
          workspace_slug: workspace.slug,
          workflow: trigger.workflow,
          recipients: indexes.map((index) => ({ index, recipient: trigger.recipients[index] })),
          actor: trigger.actor,
          data: trigger.data,
          attachments: trigger.attachments,
          tenant_id: trigger.tenant_id,
          idempotency_key: trigger.idempotency_key,
          accepted_via: via,
          accepted_at: now.toISOString(),
        };
        const id = triggerChunkId(messageId, indexes[0]);
        return {
          key: recipientKey(workspace.id, first, deterministicUuid(messageId, String(indexes[0]))),
          value: JSON.stringify(envelopeOf(TRIGGER_CHUNK_ACCEPTED_TYPE, TRIGGER_CHUNK_ACCEPTED_VERSION, id, workspace.id, now, payload)),
          headers: { 'message-id': id, 'trigger-message-id': messageId },
        };
      });
      expect([seed, messages.accepted]).toEqual([seed, expected]);
      compared += expected.length;
    }
    expect(compared).toBeGreaterThan(400);
  });

  it('expands, on the partition of each recipient, into exactly the per-recipient messages published before chunks', () => {
    for (let seed = 1; seed <= 200; seed += 1) {
      const trigger = randomTrigger(seed);
      const messageId = deterministicUuid('trigger', String(seed));
      const before = perRecipientMessages(workspace, trigger, messageId, 'api', now);
      const partitions = 1 + (seed % 12);
      const expanded = triggerMessages(workspace, trigger, messageId, 'api', now, roomy(partitions)).accepted.flatMap((message) => {
        const runs = expandTriggerChunk(chunkOf(message.value));
        return runs.map((run) => ({ run, partition: partitionFor('', message.key, partitions) }));
      });
      expanded.sort((a, b) => a.run.payload.recipient_index - b.run.payload.recipient_index);
      expect(expanded.map(({ run }) => run)).toEqual(before.map((m) => JSON.parse(m.value)));
      expect(expanded.map(({ partition }) => partition)).toEqual(before.map((m) => partitionFor('', m.key, partitions)));
    }
  });

  it('closes a chunk before it would exceed the bus message size, keeping every recipient once', () => {
    const recipients = Array.from({ length: 100 }, (_, i) => ({ distinct_id: `user-${i}`, $email: [`user-${i}@example.com`], name: 'x'.repeat(200) }));
    const validated = validateTrigger({ workflow: 'welcome', recipients, data: { note: 'y'.repeat(500) } });
    if (!validated.ok) throw new Error('invalid');
    const maxMessageBytes = 4_096;
    const messages = triggerMessages(workspace, validated.value, deterministicUuid('big'), 'api', now, { partitions: 3, maxMessageBytes });
    expect(messages.accepted.length).toBeGreaterThan(3);
    for (const message of messages.accepted) expect(RECORD_BATCH_OVERHEAD + recordBytes(message)).toBeLessThanOrEqual(maxMessageBytes);
    const indexes = messages.accepted.flatMap((m) => chunkOf(m.value).payload.recipients.map((r) => r.index));
    expect(indexes.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it('puts a whole 100-recipient trigger in one chunk on one partition, and never more than MAX_CHUNK_RECIPIENTS', () => {
    const validated = validateTrigger({ workflow: 'welcome', recipients: Array.from({ length: 100 }, (_, i) => `u-${i}`), data: { x: 'é"\\' } });
    if (!validated.ok) throw new Error('invalid');
    const messages = triggerMessages(workspace, validated.value, deterministicUuid('t'), 'api', now, roomy(1));
    expect(messages.accepted).toHaveLength(1);
    const chunk = chunkOf(messages.accepted[0].value);
    expect(chunk.payload.recipients).toHaveLength(MAX_CHUNK_RECIPIENTS);
    expect(chunk.payload).toMatchObject({ recipient_count: 100, data: { x: 'é"\\' } });
    expect(chunk.message_id).toBe(messages.accepted[0].headers?.['message-id']);
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

import { deterministicUuid } from '../ids';
import { envelopeOf } from './envelope-factory';
import { TRIGGER_ACCEPTED_TYPE, parseTriggerAccepted } from './trigger-accepted.v1';
import { TriggerChunkAccepted, expandTriggerChunk, parseTriggerChunkAccepted, triggerRecipientId } from './trigger-chunk-accepted.v1';

const user = (id: string) => ({ kind: 'user' as const, distinct_id: id, is_transient: false, inline: false, channels: {}, properties: {} });
const chunk: TriggerChunkAccepted = {
  message_id: '5d1c8e0e-6a43-4f7a-9f0e-0c1a2b3c4d5e',
  recipient_count: 5,
  workspace_slug: 'staging',
  workflow: 'welcome',
  recipients: [
    { index: 1, recipient: user('b') },
    { index: 4, recipient: user('e') },
  ],
  data: { plan: 'pro' },
  attachments: [],
  tenant_id: 'acme',
  accepted_via: 'api',
  accepted_at: '2026-11-27T14:00:00.000Z',
};

describe('notify.trigger.chunk_accepted.v1', () => {
  it('accepts a valid chunk', () => {
    expect(parseTriggerChunkAccepted(chunk)).toEqual({ ok: true, value: chunk });
  });

  it.each([
    ['no recipients', { recipients: [] }, ['payload.recipients']],
    ['more than 100 recipients', { recipients: Array.from({ length: 101 }, (_, index) => ({ index, recipient: user(`u${index}`) })), recipient_count: 101 }, ['payload.recipients']],
    ['an index past the trigger', { recipients: [{ index: 5, recipient: user('f') }] }, ['payload.recipients[0].index']],
    ['an index twice', { recipients: [{ index: 1, recipient: user('b') }, { index: 1, recipient: user('c') }] }, ['payload.recipients[1].index']],
    ['a recipient of no kind', { recipients: [{ index: 0, recipient: user('a') }, { index: 2, recipient: { distinct_id: 'c' } }] }, ['payload.recipients[1].recipient.kind']],
    ['an entry that is not an object', { recipients: ['a'] }, ['payload.recipients[0]']],
    ['no data', { data: undefined }, ['payload.data']],
    ['attachments not an array', { attachments: {} }, ['payload.attachments']],
  ])('refuses %s, naming the field', (_what, change, paths) => {
    const result = parseTriggerChunkAccepted({ ...chunk, ...change });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.path)).toEqual(paths);
  });

  it("expands into each recipient's trigger.accepted envelope, with the run id a message of its own would carry", () => {
    const expanded = expandTriggerChunk(envelopeOf('trigger.chunk_accepted', 1, deterministicUuid('chunk'), 'ws-1', new Date(chunk.accepted_at), chunk));
    expect(expanded.map((e) => [e.type, e.message_id, e.workspace_id, e.payload.recipient_index])).toEqual([
      [TRIGGER_ACCEPTED_TYPE, deterministicUuid(chunk.message_id, '1'), 'ws-1', 1],
      [TRIGGER_ACCEPTED_TYPE, triggerRecipientId(chunk.message_id, 4), 'ws-1', 4],
    ]);
    for (const envelope of expanded) expect(parseTriggerAccepted(envelope.payload)).toEqual({ ok: true, value: envelope.payload });
    expect(expanded[1].payload).toEqual({
      message_id: chunk.message_id,
      recipient_index: 4,
      recipient_count: 5,
      workspace_slug: 'staging',
      workflow: 'welcome',
      recipient: user('e'),
      data: { plan: 'pro' },
      attachments: [],
      tenant_id: 'acme',
      accepted_via: 'api',
      accepted_at: chunk.accepted_at,
    });
  });
});

import { envelopeMessage, envelopeOf, outboxMessageOf } from './envelope-factory';

describe('the message of an envelope', () => {
  const envelope = envelopeOf('thing.changed', 2, 'msg-1', 'ws-1', new Date('2026-12-07T06:00:00Z'), { name: 'Ada "quoted"' });

  it('carries the envelope as its JSON value and the envelope id as its message-id header', () => {
    const message = envelopeMessage('ws-1:ada', envelope);
    expect(message).toEqual({ key: 'ws-1:ada', value: JSON.stringify(envelope), headers: { 'message-id': 'msg-1' } });
    expect(JSON.parse(message.value)).toEqual({
      type: 'thing.changed',
      schema_version: 2,
      message_id: 'msg-1',
      workspace_id: 'ws-1',
      produced_at: '2026-12-07T06:00:00.000Z',
      payload: { name: 'Ada "quoted"' },
    });
  });

  it('keeps further headers beside message-id, which they cannot replace', () => {
    expect(envelopeMessage('k', envelope, { 'delivery-id': 'd-1', 'message-id': 'forged' }).headers).toEqual({ 'delivery-id': 'd-1', 'message-id': 'msg-1' });
  });

  it('as an outbox row: the topic, and the envelope id as the row id', () => {
    expect(outboxMessageOf('notify.thing.v1', 'ws-1', envelope)).toEqual({
      messageId: 'msg-1',
      topic: 'notify.thing.v1',
      key: 'ws-1',
      value: JSON.stringify(envelope),
      headers: { 'message-id': 'msg-1' },
    });
  });
});

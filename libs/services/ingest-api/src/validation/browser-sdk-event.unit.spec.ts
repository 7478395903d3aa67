import { isServiceWorkerEvent, readBrowserSdkEvent, readServiceWorkerEvent } from './browser-sdk-event';

/** The bodies `@suprsend/web-sdk` 4.1.2 posts to /v2/event, read as /event/ records. */
describe('readBrowserSdkEvent', () => {
  const paths = (body: unknown): string[] => {
    const read = readBrowserSdkEvent(body);
    return read.ok ? [] : read.errors.map((error) => error.path);
  };

  it('reads identify as an identity event of $identified_id with no operations, keyed by $insert_id', () => {
    expect(readBrowserSdkEvent({ event: '$identify', $insert_id: 'i-1', $time: 1, properties: { $identified_id: 'alice' } })).toEqual({
      ok: true,
      value: { distinctId: 'alice', record: { kind: 'identity', identity: { distinct_id: 'alice', operations: [], idempotency_key: 'i-1' } } },
    });
  });

  it('reads each operation key as one operation, in order, and drops the web push device id', () => {
    const read = readBrowserSdkEvent({ distinct_id: 'alice', $insert_id: 'i-2', $set: { plan: 'pro' }, $unset: ['old'] });
    expect(read).toMatchObject({ ok: true, value: { record: { identity: { operations: [{ $set: { plan: 'pro' } }, { $unset: ['old'] }] } } } });
    const subscription = { endpoint: 'https://push.example.com/x', keys: { p256dh: 'p', auth: 'a' } };
    const push = readBrowserSdkEvent({ distinct_id: 'alice', $append: { $webpush: subscription, $id_provider: 'vapid', $device_id: 'd' } });
    expect(push).toMatchObject({ ok: true, value: { record: { identity: { operations: [{ $append: { $webpush: [subscription] } }] } } } });
  });

  it('reads any other body as a track event, an explicit $idempotency_key winning over $insert_id', () => {
    expect(readBrowserSdkEvent({ event: 'Viewed', distinct_id: 'alice', properties: { a: 1 }, $insert_id: 'i-3', $idempotency_key: 'k' })).toMatchObject({
      ok: true,
      value: { distinctId: 'alice', record: { kind: 'track', event: { event: 'Viewed', distinct_id: 'alice', properties: { a: 1 }, idempotency_key: 'k' } } },
    });
  });

  it("names the SDK's own paths of what is wrong", () => {
    expect(paths('x')).toEqual(['']);
    expect(paths({ event: '$identify', properties: {} })).toEqual(['properties.$identified_id']);
    expect(paths({ event: '$identify', properties: { $identified_id: '' } })).toEqual(['properties.$identified_id']);
    expect(paths({ distinct_id: 'alice', $add: { visits: 'one' } })).toEqual(['$add.visits']);
    expect(paths({ distinct_id: 'alice', event: 'e', $set: { a: 1 } })).toEqual(['event']);
    expect(paths({ event: 'e', distinct_id: 'alice', $insert_id: 7 })).toEqual(['$insert_id']);
    expect(paths({ event: 'e' })).toEqual(['distinct_id']);
  });
});

/** What the web SDK's `serviceworker.js` posts about a notification it showed. */
describe('readServiceWorkerEvent', () => {
  const id = '0b9c6a52-6f7e-4d1a-9d38-2f0c1b7e5a10:delivery:0:webpush';

  it('reads delivered, clicked (with the button) and dismissed, by the push payload id', () => {
    expect(readServiceWorkerEvent({ event: '$notification_delivered', $time: 1, properties: { id } })).toEqual({ ok: true, value: { status: 'delivered', notificationId: id } });
    expect(readServiceWorkerEvent({ event: '$notification_clicked', $time: 1, properties: { id, label_id: '' } })).toEqual({ ok: true, value: { status: 'clicked', notificationId: id } });
    expect(readServiceWorkerEvent({ event: '$notification_clicked', properties: { id, label_id: 'accept' } })).toEqual({ ok: true, value: { status: 'clicked', notificationId: id, action: 'accept' } });
    expect(readServiceWorkerEvent({ event: '$notification_dismiss', properties: { id } })).toEqual({ ok: true, value: { status: 'dismissed', notificationId: id } });
  });

  it('takes only those three events, and names a missing or foreign id', () => {
    expect(isServiceWorkerEvent({ event: '$notification_clicked' })).toBe(true);
    expect(isServiceWorkerEvent({ event: 'Viewed Plan' })).toBe(false);
    expect(isServiceWorkerEvent({ event: 'constructor' })).toBe(false);
    expect(readServiceWorkerEvent({ event: '$notification_delivered', properties: {} })).toEqual({ ok: false, errors: [expect.objectContaining({ path: 'properties.id' })] });
    expect(readServiceWorkerEvent({ event: '$notification_clicked', properties: { id: 'x'.repeat(513), label_id: 5 } })).toEqual({
      ok: false,
      errors: [expect.objectContaining({ path: 'properties.id' }), expect.objectContaining({ path: 'properties.label_id' })],
    });
  });
});

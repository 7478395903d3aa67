import { readServerSdkEvent } from './server-sdk-event';

/** The records suprsend-py-sdk 0.19.7 posts to /v2/event/ and /v2/bulk/event/, read as /event/ records. */
describe('readServerSdkEvent', () => {
  it('reads a track_event body as a track event keyed by its $insert_id, the SDK fields ignored', () => {
    expect(readServerSdkEvent({ $insert_id: 'i-1', $time: 1, env: 'wk', event: 'Paid', distinct_id: 'alice', properties: { a: 1 }, tenant_id: 'acme' })).toMatchObject({
      ok: true,
      value: { kind: 'track', event: { event: 'Paid', distinct_id: 'alice', properties: { a: 1 }, tenant_id: 'acme', idempotency_key: 'i-1' } },
    });
  });

  it('lets an explicit $idempotency_key win, and reads an identity event as /event/ does', () => {
    expect(readServerSdkEvent({ $insert_id: 'i-2', $idempotency_key: 'k', event: 'Paid', distinct_id: 'alice' })).toMatchObject({ ok: true, value: { event: { idempotency_key: 'k' } } });
    expect(readServerSdkEvent({ $insert_id: 'i-3', distinct_id: 'alice', $user_operations: [{ $set: { plan: 'pro' } }] })).toMatchObject({
      ok: true,
      value: { kind: 'identity', identity: { distinct_id: 'alice', idempotency_key: 'i-3' } },
    });
  });

  it('names every failing field', () => {
    const paths = (body: unknown): string[] => {
      const read = readServerSdkEvent(body);
      return read.ok ? [] : read.errors.map((error) => error.path);
    };
    expect(paths([])).toEqual(['']);
    expect(paths({ $insert_id: '', event: 'e', distinct_id: 'alice' })).toEqual(['$insert_id']);
    expect(paths({ $insert_id: 'x'.repeat(256), distinct_id: '', event: 'e', properties: 'no' })).toEqual(['$insert_id', 'distinct_id', 'properties']);
  });
});

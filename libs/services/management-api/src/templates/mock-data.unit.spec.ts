import { DEFAULT_MOCK_DATA, transformedData, updateMockData } from './mock-data';

describe('template mock data', () => {
  it('replaces the fields given and keeps the others', () => {
    const first = updateMockData(DEFAULT_MOCK_DATA, { payload: { name: 'Ada' }, recipient_distinct_id: 'ada' });
    expect(first).toEqual({ ok: true, data: { ...DEFAULT_MOCK_DATA, payload: { name: 'Ada' }, recipient_distinct_id: 'ada' } });
    if (!first.ok) return;
    const second = updateMockData(first.data, { is_batch: true, batch_count: 3, recipient_distinct_id: null });
    expect(second).toEqual({ ok: true, data: { ...first.data, is_batch: true, batch_count: 3, recipient_distinct_id: null } });
  });

  it('reports every invalid field by its path', () => {
    expect(updateMockData(DEFAULT_MOCK_DATA, { payload: [], batch_count: 0, recipient_sub_type: 'group', actor_object: { id: 'x' }, colour: 'red' })).toEqual({
      ok: false,
      errors: [
        { path: 'payload', message: 'must be a JSON object' },
        { path: 'batch_count', message: 'must be an integer from 1 to 100' },
        { path: 'recipient_sub_type', message: 'must be one of user, object' },
        { path: 'actor_object', message: 'must be null or {object_type, id} with non-empty strings' },
        { path: 'colour', message: expect.stringContaining('is not a field of mock data') },
      ],
    });
    expect(updateMockData(DEFAULT_MOCK_DATA, 'nope')).toEqual({ ok: false, errors: [{ path: '', message: 'the body must be a JSON object' }] });
  });

  it('renders with the payload at the top, the recipient, actor and tenant, and batched copies of the payload', () => {
    const data = {
      ...DEFAULT_MOCK_DATA,
      payload: { order: 'A-1' },
      tenant_id: 'acme',
      is_batch: true,
      batch_count: 2,
      recipient_distinct_id: 'ada',
      actor_sub_type: 'object' as const,
      actor_object: { object_type: 'teams', id: 'red' },
    };
    expect(transformedData(data)).toEqual({
      order: 'A-1',
      $recipient: { distinct_id: 'ada' },
      $actor: { object_type: 'teams', id: 'red' },
      $tenant: { tenant_id: 'acme' },
      $brand: { brand_id: 'acme' },
      $batched_events: [{ order: 'A-1' }, { order: 'A-1' }],
      $batched_events_count: 2,
    });
    expect(transformedData(DEFAULT_MOCK_DATA)).toEqual({});
  });
});

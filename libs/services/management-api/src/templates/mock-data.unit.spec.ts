import { DEFAULT_MOCK_DATA, transformedData, updateMockData } from './mock-data';
import { TEMPLATE_BODIES } from './request-bodies';

describe('template mock data', () => {
  it('replaces the fields given and keeps the others', () => {
    const first = updateMockData(DEFAULT_MOCK_DATA, { payload: { name: 'Ada' }, recipient_distinct_id: 'ada' });
    expect(first).toEqual({ ...DEFAULT_MOCK_DATA, payload: { name: 'Ada' }, recipient_distinct_id: 'ada' });
    const second = updateMockData(first, { is_batch: true, batch_count: 3, recipient_distinct_id: null });
    expect(second).toEqual({ ...first, is_batch: true, batch_count: 3, recipient_distinct_id: null });
  });

  it('its schema reports every invalid field by its path', () => {
    const parser = TEMPLATE_BODIES.mockData;
    expect(parser.errors({ payload: [], batch_count: 0, recipient_sub_type: 'group', actor_object: { id: 'x' }, tenant_id: ' ', colour: 'red' })).toEqual([
      { path: 'colour', message: expect.stringContaining('is not a field of mock data') },
      { path: 'payload', message: 'must be a JSON object' },
      { path: 'tenant_id', message: 'must be null or a non-empty string' },
      { path: 'batch_count', message: 'must be an integer from 1 to 100' },
      { path: 'recipient_sub_type', message: 'must be one of user, object' },
      { path: 'actor_object', message: 'must be null or {object_type, id} with non-empty strings' },
    ]);
    expect(parser.errors('nope')).toEqual([{ path: '', message: 'the body must be a JSON object' }]);
    expect(parser.errors({ recipient_object: { object_type: 'teams', id: 'red' }, actor_object: null, tenant_id: null })).toEqual([]);
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

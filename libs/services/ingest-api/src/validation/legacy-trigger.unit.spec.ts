import { validateLegacyTrigger } from './legacy-trigger';

const base = { name: 'Welcome', template: 'welcome-email', notification_category: 'transactional', users: [{ distinct_id: 'u1' }], data: {} };
const nodesOf = (body: unknown): unknown[] => {
  const result = validateLegacyTrigger(body);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return (result.value.inline_workflow?.definition as { tree: { nodes: unknown[] } }).tree.nodes;
};

describe('validateLegacyTrigger', () => {
  it('sends the template on every channel, after the delay (seconds or a duration) and until trigger_at', () => {
    expect(nodesOf(base)).toEqual([{ name: 'Send', node_type: 'send_multi_channel', template: 'welcome-email' }]);
    expect(nodesOf({ ...base, delay: '90', trigger_at: '2030-01-01T00:00:00Z' })).toEqual([
      expect.objectContaining({ node_type: 'delay', delay_type: 'fixed', duration: '90s' }),
      expect.objectContaining({ node_type: 'delay', delay_type: 'relative_to', relative_to: expect.objectContaining({ pivot_expr: '"2030-01-01T00:00:00.000Z"' }) }),
      expect.objectContaining({ node_type: 'send_multi_channel' }),
    ]);
    expect(nodesOf({ ...base, delay: '1d2h' })[0]).toMatchObject({ duration: '1d2h' });
  });

  it('makes delivery.smart smart routing: interaction is interacted, any other success an event of the user', () => {
    expect(nodesOf({ ...base, delivery: { smart: true, success: 'interaction', time_to_live: 3600, mandatory_channels: ['email'] } })).toEqual([
      { name: 'Send', node_type: 'send_smart_channel_routing', template: 'welcome-email', success: 'interacted', ttl_value: '3600s', mandatory_channels: ['email'] },
    ]);
    expect(nodesOf({ ...base, delivery: { smart: true, success: 'order_paid' } })[0]).toMatchObject({ success: 'order_paid', success_is_event: true });
    expect(nodesOf({ ...base, delivery: { smart: false, success: 'seen' } })[0]).toMatchObject({ node_type: 'send_multi_channel' });
  });

  it('reads brand_id as the tenant (tenant_id wins), $preferred_language as the locale, and names the workflow after `name`', () => {
    const result = validateLegacyTrigger({ ...base, brand_id: 'acme', users: [{ distinct_id: 'u1', $preferred_language: 'fr' }] });
    expect(result).toMatchObject({ ok: true, value: { workflow: 'Welcome', tenant_id: 'acme', recipients: [{ distinct_id: 'u1', locale: 'fr' }], inline_workflow: { slug: 'Welcome', version: 1 } } });
    expect(validateLegacyTrigger({ ...base, brand_id: 'acme', tenant_id: 'globex' })).toMatchObject({ value: { tenant_id: 'globex' } });
  });

  it('refuses a trigger_at Postgres could not store, which would be acknowledged and then stranded', () => {
    for (const trigger_at of ['+275760-09-13T00:00:00.000Z', '2024-02-30T00:00:00Z', '0000-01-01T00:00:00Z']) {
      expect(validateLegacyTrigger({ ...base, trigger_at })).toMatchObject({ ok: false, errors: [{ path: 'trigger_at' }] });
    }
    expect(validateLegacyTrigger({ ...base, trigger_at: '9999-12-31T23:59:59Z' })).toMatchObject({ ok: true });
  });

  it('names every failing field', () => {
    const result = validateLegacyTrigger({ users: [{ distinct_id: 'u', $channels: ['fax'] }], delivery: { time_to_live: 0, success: '' }, data: 5 });
    expect(result.ok ? [] : result.errors.map((error) => error.path).sort()).toEqual(
      ['data', 'delivery.success', 'delivery.time_to_live', 'name', 'notification_category', 'template', 'users[0].$channels[0]'].sort(),
    );
    expect(validateLegacyTrigger({ ...base, users: Array.from({ length: 101 }, (_, i) => `u${i}`) })).toMatchObject({ ok: false, errors: [{ path: 'users' }] });
  });
});

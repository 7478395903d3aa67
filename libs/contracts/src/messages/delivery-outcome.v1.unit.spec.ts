import { parseDeliveryOutcome } from './delivery-outcome.v1';

const outcome = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  delivery_id: 'd1',
  run_id: 'r1',
  message_id: 'm1',
  workspace_slug: 'staging',
  channel: 'email',
  status: 'sent_by_vendor',
  at: '2026-01-01T00:00:00.000Z',
  ...over,
});

describe('parseDeliveryOutcome: warnings', () => {
  it('accepts an outcome without warnings, or with missing variables and translation keys', () => {
    expect(parseDeliveryOutcome(outcome()).ok).toBe(true);
    const warnings = [
      { code: 'missing_variable', field: 'subject', variable: 'name' },
      { code: 'missing_translation', field: 'text', key: 'greeting' },
    ];
    expect(parseDeliveryOutcome(outcome({ warnings }))).toEqual({ ok: true, value: outcome({ warnings }) });
  });

  it.each([
    ['not an array', { code: 'missing_variable', field: 'subject', variable: 'name' }],
    ['an unknown code', [{ code: 'typo', field: 'subject' }]],
    ['no field', [{ code: 'missing_variable', variable: 'name' }]],
  ])('refuses warnings that are %s, naming the field', (_case, warnings) => {
    expect(parseDeliveryOutcome(outcome({ warnings }))).toEqual({ ok: false, errors: [expect.objectContaining({ path: 'payload.warnings' })] });
  });
});

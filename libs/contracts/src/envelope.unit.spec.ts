import { parseEnvelope } from './envelope';

describe('parseEnvelope', () => {
  const valid = {
    type: 'trigger.accepted',
    schema_version: 1,
    message_id: 'm-1',
    workspace_id: 'ws-1',
    produced_at: '2026-11-21T00:00:00.000Z',
    payload: { a: 1 },
  };

  it('accepts a complete envelope', () => {
    expect(parseEnvelope(JSON.stringify(valid))).toEqual({ ok: true, value: valid });
  });

  it.each([
    ['not JSON', '{oops', ''],
    ['an array', '[]', ''],
    ['a missing message_id', JSON.stringify({ ...valid, message_id: undefined }), 'message_id'],
    ['an empty workspace_id', JSON.stringify({ ...valid, workspace_id: '' }), 'workspace_id'],
    ['a fractional schema_version', JSON.stringify({ ...valid, schema_version: 1.5 }), 'schema_version'],
    ['no payload', JSON.stringify({ ...valid, payload: undefined }), 'payload'],
  ])('rejects %s, naming the field', (_case, raw, path) => {
    const result = parseEnvelope(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.path)).toContain(path);
  });

  it('names every failing field, not only the first', () => {
    const result = parseEnvelope(JSON.stringify({ payload: 1 }));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors.map((e) => e.path).sort()).toEqual(
        ['message_id', 'produced_at', 'schema_version', 'type', 'workspace_id'].sort(),
      );
    }
  });

  it('rejects an envelope of another type when one is expected', () => {
    const result = parseEnvelope(JSON.stringify(valid), 'event.accepted');
    expect(result).toEqual({ ok: false, errors: [{ path: 'type', message: 'must be event.accepted' }] });
  });
});

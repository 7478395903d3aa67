import { compilePayloadSchema } from './payload-schema';

describe('payload schemas', () => {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    required: ['order_id'],
    additionalProperties: false,
    properties: { order_id: { type: 'string' }, items: { type: 'array', items: { type: 'object', properties: { qty: { type: 'integer', minimum: 1 } } } } },
  };

  it('names every failing path of the data', () => {
    const compiled = compilePayloadSchema(schema);
    if (!compiled.ok) throw new Error('the schema should compile');
    expect(compiled.validate({ order_id: 'A-1', items: [{ qty: 2 }] }, 'data')).toEqual([]);
    expect(compiled.validate({ items: [{ qty: 2 }, { qty: 0 }], colour: 'red' }, 'data')).toEqual([
      { path: 'data.order_id', message: 'is required' },
      { path: 'data.colour', message: 'is not allowed' },
      { path: 'data.items[1].qty', message: 'must be >= 1' },
    ]);
  });

  it('speaks draft-07 when the document says so', () => {
    const compiled = compilePayloadSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { n: { type: 'number' } } });
    if (!compiled.ok) throw new Error('the schema should compile');
    expect(compiled.validate({ n: 'x' }, 'data')).toEqual([{ path: 'data.n', message: 'must be number' }]);
  });

  it('refuses a document that is not a schema, by path', () => {
    expect(compilePayloadSchema({ type: 'objekt' })).toEqual({ ok: false, errors: [{ path: 'json_schema', message: expect.stringContaining('is not a valid JSON Schema') }] });
    expect(compilePayloadSchema([], 'json_schema')).toEqual({ ok: false, errors: [{ path: 'json_schema', message: 'must be a JSON Schema object' }] });
  });
});

import { mergeOpenApi } from './openapi';

describe('mergeOpenApi', () => {
  const triggers = {
    paths: { '/trigger/': { post: { responses: {} } } },
    components: { schemas: { ErrorResponse: { type: 'object' }, Trigger: { type: 'object' } }, securitySchemes: { BearerAuth: { type: 'http' } } },
    security: [{ BearerAuth: [] }],
  };
  const users = {
    paths: { '/v1/user/{distinct_id}/': { get: { responses: {} } } },
    components: { schemas: { ErrorResponse: { type: 'object' }, User: { type: 'object' } }, securitySchemes: { BearerAuth: { type: 'http' } } },
    security: [{ BearerAuth: [] }],
  };

  it('gathers the paths and components of every service of one API, sharing identical components', () => {
    const document = mergeOpenApi('public', [triggers, users]);
    expect(document).toMatchObject({ openapi: '3.1.0', info: { title: 'Herald notification API' }, security: [{ BearerAuth: [] }] });
    expect(Object.keys(document.paths)).toEqual(['/trigger/', '/v1/user/{distinct_id}/']);
    expect(Object.keys(document.components?.schemas ?? {})).toEqual(['ErrorResponse', 'Trigger', 'User']);
  });

  it('documents the input-hygiene 400 on every operation, keeping an operation\'s own 400', () => {
    const own = { paths: { '/event/': { post: { responses: { 400: { description: 'own' } } } } } };
    const document = mergeOpenApi('public', [triggers, users, own]);
    expect(document.paths['/trigger/']).toMatchObject({ post: { responses: { 400: expect.objectContaining({ description: expect.stringContaining('NUL') }) } } });
    expect(document.paths['/v1/user/{distinct_id}/']).toMatchObject({ get: { responses: { 400: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } } } } } });
    expect(document.paths['/event/']).toMatchObject({ post: { responses: { 400: { description: 'own' } } } });
  });

  it("documents the database's 429 (with Retry-After) and 503 on every operation of either API, keeping an operation's own", () => {
    const own = { paths: { '/event/': { post: { responses: { 429: { description: 'own' } } } } } };
    for (const api of ['public', 'management'] as const) {
      const document = mergeOpenApi(api, [triggers, users, own]);
      for (const path of ['/trigger/', '/v1/user/{distinct_id}/', '/event/']) {
        const responses = Object.values(document.paths[path])[0] as { responses: Record<string, { description: string; headers?: object }> };
        expect(Object.keys(responses.responses).sort()).toEqual(['400', '429', '503']);
        expect(responses.responses[503].description).toContain('unreachable');
      }
      expect(document.paths['/trigger/']).toMatchObject({ post: { responses: { 429: { headers: { 'Retry-After': { schema: { type: 'integer' } } } } } } });
      expect(document.paths['/event/']).toMatchObject({ post: { responses: { 429: { description: 'own' } } } });
    }
  });

  it('refuses a path described twice, or one component name with two meanings', () => {
    expect(() => mergeOpenApi('public', [triggers, triggers])).toThrow('path /trigger/ is described by two services');
    const clash = { paths: {}, components: { schemas: { ErrorResponse: { type: 'string' } } } };
    expect(() => mergeOpenApi('public', [triggers, clash])).toThrow('schema ErrorResponse is defined twice, differently');
  });
});

import { openApiProblems } from './openapi-response-check';

const workspace = { uid: 'u', slug: 's', data_center: {}, is_expired: false, has_limit_reached: false, name: 'n', description: '', mode: 'sandbox' };

describe('openApiProblems', () => {
  it('accepts a documented response', () => {
    expect(openApiProblems('GET', 'http://h/v1/workspace/?limit=5', 200, { meta: { count: 1, limit: 5, offset: 0 }, results: [workspace] })).toEqual([]);
  });

  it('names a field the description does not allow', () => {
    const problems = openApiProblems('GET', 'http://h/v1/workspace/', 200, {
      meta: { count: 1, limit: 5, offset: 0 },
      results: [{ ...workspace, secret: 'leak' }],
    });
    expect(problems).toEqual([expect.stringContaining('/results/0 must NOT have additional properties')]);
  });

  it('refuses an undocumented status, method or path', () => {
    expect(openApiProblems('GET', 'http://h/v1/workspace/', 500, {})).toEqual([expect.stringContaining('status 500 not in the OpenAPI description')]);
    expect(openApiProblems('DELETE', 'http://h/v1/workspace/', 204, '')).toEqual([expect.stringContaining('method not in the OpenAPI description')]);
    expect(openApiProblems('GET', 'http://h/v1/nothing/here/at/all/', 200, {})).toEqual([expect.stringContaining('path not in the OpenAPI description')]);
  });

  it('matches path templates and checks error bodies too', () => {
    expect(openApiProblems('DELETE', 'http://h/v1/staging/ws_key/abc/', 204, '')).toEqual([]);
    expect(openApiProblems('GET', 'http://h/v1/staging/ws_key/', 404, { code: 404 })).toEqual([expect.stringContaining("must have required property 'message'")]);
  });
});

import { InvalidRequest, PreparedRequest } from './prepare-request';
import { nextHop, redirectLocation } from './redirect';
import { HttpMethod } from './types';

function hop(method: HttpMethod, url = 'https://a.example/start'): PreparedRequest {
  return {
    url: new URL(url),
    method,
    headers: { authorization: 'Bearer t', cookie: 'c=1', host: 'a.example', 'x-api-key': 'k', 'content-type': 'application/json', 'idempotency-key': 'i' },
    body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.from('{}'),
  };
}

function followed(current: PreparedRequest, status: number, location: string, credentialHeaders: string[] = []): PreparedRequest {
  const next = nextHop(current, status, location, credentialHeaders);
  if (next instanceof InvalidRequest) throw new Error(next.message);
  return next;
}

describe('redirectLocation', () => {
  it.each([
    [301, 'https://b/', 'https://b/'],
    [302, '/x', '/x'],
    [303, '/x', '/x'],
    [307, '/x', '/x'],
    [308, '/x', '/x'],
    [300, '/x', undefined],
    [304, '/x', undefined],
    [200, '/x', undefined],
    [302, undefined, undefined],
  ])('%i with Location %p follows %p', (status, location, expected) => {
    expect(redirectLocation(status, location === undefined ? {} : { location })).toBe(expected);
  });
});

describe('nextHop', () => {
  it.each<[number, HttpMethod, HttpMethod, boolean]>([
    [301, 'POST', 'GET', false],
    [302, 'POST', 'GET', false],
    [303, 'POST', 'GET', false],
    [303, 'PUT', 'GET', false],
    [303, 'HEAD', 'HEAD', true],
    [301, 'PUT', 'PUT', true],
    [302, 'DELETE', 'DELETE', true],
    [307, 'POST', 'POST', true],
    [308, 'PATCH', 'PATCH', true],
  ])('%i turns %s into %s (unchanged otherwise: %s)', (status, method, expected, keepsBody) => {
    const next = followed(hop(method), status, '/next');
    expect(next.method).toBe(expected);
    expect(next.body !== undefined).toBe(keepsBody && method !== 'HEAD');
    expect('content-type' in next.headers).toBe(keepsBody);
  });

  it('resolves a relative Location against the current URL', () => {
    expect(followed(hop('GET'), 302, '../other?q=1').url.href).toBe('https://a.example/other?q=1');
  });

  it('keeps credentials on the same origin', () => {
    expect(followed(hop('GET'), 302, 'https://a.example/elsewhere').headers).toMatchObject({
      authorization: 'Bearer t',
      cookie: 'c=1',
      host: 'a.example',
      'x-api-key': 'k',
    });
  });

  it.each(['https://b.example/', 'http://a.example/start', 'https://a.example:8443/'])('drops credentials and Host on a redirect to %s', (location) => {
    const { headers } = followed(hop('GET'), 302, location, ['X-Api-Key']);
    for (const name of ['authorization', 'cookie', 'host', 'x-api-key']) expect(headers).not.toHaveProperty(name);
    expect(headers['idempotency-key']).toBe('i');
  });

  it.each(['file:///etc/passwd', 'data:text/plain,x', 'http://[::1'])('refuses a redirect to %s', (location) => {
    expect(nextHop(hop('GET'), 302, location, [])).toBeInstanceOf(InvalidRequest);
  });
});

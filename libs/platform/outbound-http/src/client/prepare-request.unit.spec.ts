import { InvalidRequest, PreparedRequest, prepareRequest } from './prepare-request';
import { OutboundRequest } from './types';

function prepared(request: OutboundRequest): PreparedRequest {
  const result = prepareRequest(request, 'Herald');
  if (result instanceof InvalidRequest) throw new Error(result.message);
  return result;
}

describe('prepareRequest', () => {
  it.each(['data:text/plain,hi', 'file:///etc/passwd', 'ftp://example.com/', 'javascript:alert(1)', 'gopher://x/', 'not a url', ''])(
    'refuses %p',
    (url) => {
      expect(prepareRequest({ url }, 'Herald')).toBeInstanceOf(InvalidRequest);
    },
  );

  it('appends query parameters to the URL’s own, repeating arrays', () => {
    const { url } = prepared({ url: 'https://example.com/hook?a=1', query: { b: 'x y', c: [1, true], d: false } });
    expect(url.href).toBe('https://example.com/hook?a=1&b=x+y&c=1&c=true&d=false');
  });

  it('sends JSON with its content type, a user agent and the idempotency key under the caller’s header name', () => {
    const request = prepared({
      url: 'https://example.com/',
      method: 'POST',
      body: { json: { a: [1, 'é'] } },
      idempotencyKey: { header: 'X-Herald-Idempotency', value: 'k-1' },
    });
    expect(request.method).toBe('POST');
    expect(request.body?.toString()).toBe('{"a":[1,"é"]}');
    expect(request.headers).toEqual({ 'user-agent': 'Herald', 'content-type': 'application/json', 'x-herald-idempotency': 'k-1' });
  });

  it('lets the caller’s content type and user agent win, whatever their case', () => {
    const request = prepared({
      url: 'https://example.com/',
      method: 'POST',
      headers: { 'Content-Type': 'application/vnd.api+json', 'User-Agent': 'custom' },
      body: { json: {} },
    });
    expect(request.headers).toEqual({ 'user-agent': 'custom', 'content-type': 'application/vnd.api+json' });
  });

  it('sends raw bodies as given', () => {
    const request = prepared({ url: 'https://example.com/', method: 'PUT', body: { raw: new Uint8Array([1, 2]), contentType: 'application/octet-stream' } });
    expect([...(request.body ?? [])]).toEqual([1, 2]);
    expect(request.headers['content-type']).toBe('application/octet-stream');
  });

  it('refuses a body JSON cannot express', () => {
    expect(prepareRequest({ url: 'https://example.com/', method: 'POST', body: { json: 1n } }, 'H')).toBeInstanceOf(InvalidRequest);
    expect(prepareRequest({ url: 'https://example.com/', method: 'POST', body: { json: undefined } }, 'H')).toBeInstanceOf(InvalidRequest);
  });

  it('refuses header injection without repeating the value, which may be a secret', () => {
    const result = prepareRequest({ url: 'https://example.com/', headers: { authorization: 'Bearer s3cret\r\nX-Evil: 1' } }, 'H');
    expect(result).toBeInstanceOf(InvalidRequest);
    expect((result as InvalidRequest).message).not.toContain('s3cret');
    expect(prepareRequest({ url: 'https://example.com/', headers: { 'bad name': 'x' } }, 'H')).toBeInstanceOf(InvalidRequest);
  });
});

import { Readable } from 'node:stream';
import { decodeBody, readBody } from './response-body';

describe('decodeBody', () => {
  const complete = (text: string | Buffer) => ({ bytes: Buffer.from(text), complete: true });

  it.each<[string | Buffer, string | undefined, unknown]>([
    ['{"a":1}', 'application/json', { a: 1 }],
    ['{"a":1}', 'application/json; charset=utf-8', { a: 1 }],
    ['{"a":1}', 'application/problem+json', { a: 1 }],
    ['{"a":1}', 'text/plain', '{"a":1}'],
    ['{"a":1}', undefined, '{"a":1}'],
    ['not json', 'application/json', 'not json'],
    ['', 'application/json', ''],
    ['\ufeff{"bom":true}', 'application/json', { bom: true }],
    [Buffer.from([0xe9]), 'text/plain; charset=ISO-8859-1', 'é'],
    [Buffer.from([0xe9]), 'text/plain; charset="latin1"', 'é'],
    ['ok', 'text/plain; charset=no-such-charset', 'ok'],
  ])('%p as %p is %p', (bytes, contentType, expected) => {
    expect(decodeBody(complete(bytes), contentType)).toEqual(expected);
  });

  it('never parses a truncated body', () => {
    expect(decodeBody({ bytes: Buffer.from('{"a":1}'), complete: false }, 'application/json')).toBe('{"a":1}');
  });
});

describe('readBody', () => {
  const stream = (...chunks: string[]) => Readable.from(chunks.map((c) => Buffer.from(c)));

  it('reads everything under the limit', async () => {
    await expect(readBody(stream('ab', 'cd'), 4)).resolves.toEqual({ bytes: Buffer.from('abcd'), complete: true });
  });

  it('keeps the first limit bytes of a longer body and stops', async () => {
    const source = stream('ab', 'cd', 'ef');
    await expect(readBody(source, 3)).resolves.toEqual({ bytes: Buffer.from('abc'), complete: false });
    expect(source.destroyed).toBe(true);
  });
});

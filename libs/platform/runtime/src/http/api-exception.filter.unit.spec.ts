import { ArgumentsHost } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { HeraldLogger } from '../logging/logger';
import { ApiExceptionFilter } from './api-exception.filter';

/** The status and body the filter answers for one exception. */
function answerFor(exception: unknown): { status: number; body: unknown; headers: Record<string, string> } {
  const answer = { status: 0, body: undefined as unknown, headers: {} as Record<string, string> };
  const reply = {
    header(name: string, value: string) {
      answer.headers[name] = value;
      return this;
    },
    status(code: number) {
      answer.status = code;
      return this;
    },
    send(body: unknown) {
      answer.body = body;
      return this;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => reply, getRequest: () => ({ method: 'GET', url: '/x' }) }) } as unknown as ArgumentsHost;
  const logger = { error: () => undefined } as unknown as HeraldLogger;
  new ApiExceptionFilter(logger).catch(exception, host);
  return answer;
}

describe('ApiExceptionFilter', () => {
  it('answers a HeraldError with its status and the extended body', () => {
    expect(answerFor(HeraldError.validation([{ path: 'name', message: 'is required' }]))).toEqual({
      status: 400,
      headers: {},
      body: { code: 400, error_code: 'validation_error', type: 'ValidationError', message: 'invalid request', detail: 'name: is required' },
    });
  });

  it('pushes back with 429 and Retry-After, not 503, when the database is saturated (the wait for a pool connection ran out)', () => {
    expect(answerFor(new Error('timeout exceeded when trying to connect'))).toEqual({
      status: 429,
      headers: { 'retry-after': '1' },
      body: { code: 429, error_code: 'rate_limited', type: 'Throttled', message: expect.stringContaining('retry after 1 s'), detail: expect.any(String) },
    });
  });

  it('answers 503 (retry), not 500, when the database is unreachable: a refused or broken connection', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const typeormWrapped = Object.assign(new Error('Query failed'), { driverError: Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }) });
    for (const exception of [refused, typeormWrapped]) {
      expect(answerFor(exception)).toMatchObject({ status: 503, headers: {}, body: { error_code: 'unavailable', type: 'ServiceUnavailable' } });
    }
  });

  it('answers anything else with 500: a bug in Herald', () => {
    expect(answerFor(new TypeError('x is undefined'))).toMatchObject({ status: 500, body: { error_code: 'internal_error' } });
    expect(answerFor(Object.assign(new Error('invalid byte sequence'), { code: '22021' }))).toMatchObject({ status: 500 });
  });
});

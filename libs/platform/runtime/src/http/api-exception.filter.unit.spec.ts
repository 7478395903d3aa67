import { ArgumentsHost } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { HeraldLogger } from '../logging/logger';
import { ApiExceptionFilter } from './api-exception.filter';

/** The status and body the filter answers for one exception. */
function answerFor(exception: unknown): { status: number; body: unknown } {
  const answer = { status: 0, body: undefined as unknown };
  const reply = {
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
      body: { code: 400, error_code: 'validation_error', type: 'ValidationError', message: 'invalid request', detail: 'name: is required' },
    });
  });

  it('answers 503 (retry), not 500, when the database is unavailable: a pool timeout, a refused or broken connection', () => {
    const poolTimeout = new Error('timeout exceeded when trying to connect');
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const typeormWrapped = Object.assign(new Error('Query failed'), { driverError: Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }) });
    for (const exception of [poolTimeout, refused, typeormWrapped]) {
      expect(answerFor(exception)).toMatchObject({ status: 503, body: { error_code: 'unavailable', type: 'ServiceUnavailable' } });
    }
  });

  it('answers anything else with 500: a bug in Herald', () => {
    expect(answerFor(new TypeError('x is undefined'))).toMatchObject({ status: 500, body: { error_code: 'internal_error' } });
    expect(answerFor(Object.assign(new Error('invalid byte sequence'), { code: '22021' }))).toMatchObject({ status: 500 });
  });
});

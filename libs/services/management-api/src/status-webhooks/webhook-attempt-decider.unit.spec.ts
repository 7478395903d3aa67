import { decideAttempt } from './webhook-attempt-decider';

const options = { initialRetryDelayMs: 1_000, maxRetryDelayMs: 10_000, maxAttempts: 4 };

describe('decideAttempt', () => {
  it('delivers on a 2xx', () => {
    expect(decideAttempt({ ok: true, statusCode: 204 }, 1, options, 0.5)).toEqual({ state: 'delivered' });
  });

  it('retries a failure with doubling delays, jittered within the upper half, capped', () => {
    const failure = { ok: false, statusCode: 503, error: 'answered 503' } as const;
    expect(decideAttempt(failure, 1, options, 0)).toEqual({ state: 'pending', retryInMs: 500 });
    expect(decideAttempt(failure, 1, options, 0.5)).toEqual({ state: 'pending', retryInMs: 750 });
    expect(decideAttempt(failure, 2, options, 0)).toEqual({ state: 'pending', retryInMs: 1_000 });
    expect(decideAttempt(failure, 3, { ...options, maxRetryDelayMs: 3_000 }, 1)).toEqual({ state: 'pending', retryInMs: 3_000 });
  });

  it('dead-letters the delivery at the last attempt, whatever the failure', () => {
    expect(decideAttempt({ ok: false, error: 'connect ECONNREFUSED' }, 4, options, 0.5)).toEqual({ state: 'dead' });
    expect(decideAttempt({ ok: false, statusCode: 400, error: 'answered 400' }, 3, options, 0.5)).toMatchObject({ state: 'pending' });
  });
});

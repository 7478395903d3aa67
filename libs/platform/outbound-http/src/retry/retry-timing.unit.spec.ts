import { OutboundFailure, OutboundResponse } from '../client/types';
import { backoffDelay, isRetryable, parseRetryAfter, retryDelay } from './retry-timing';

function statusFailure(status: number, headers: Record<string, string> = {}): OutboundFailure {
  const response: OutboundResponse = { status, headers, body: '', durationMs: 1, redirects: 0 };
  return { kind: 'http_status', message: `HTTP ${status}`, status, response };
}

const timing = { baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 };

describe('isRetryable', () => {
  it.each<[OutboundFailure, boolean]>([
    [{ kind: 'network', message: 'reset', code: 'ECONNRESET' }, true],
    [{ kind: 'timeout', message: 't', phase: 'connect' }, true],
    [{ kind: 'timeout', message: 't', phase: 'total' }, true],
    [statusFailure(500), true],
    [statusFailure(503), true],
    [statusFailure(429), true],
    [statusFailure(400), false],
    [statusFailure(401), false],
    [statusFailure(404), false],
    [statusFailure(408), false],
    [statusFailure(302), false],
    [{ kind: 'blocked_address', message: 'b', host: 'h', address: '127.0.0.1', category: 'loopback' }, false],
    [{ kind: 'too_large', message: 'l', limitBytes: 1 }, false],
    [{ kind: 'too_many_redirects', message: 'r', limit: 1 }, false],
    [{ kind: 'invalid_request', message: 'i' }, false],
  ])('%j: %s', (failure, expected) => {
    expect(isRetryable(failure)).toBe(expected);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it.each<[string | undefined, number | undefined]>([
    [undefined, undefined],
    ['0', 0],
    ['3', 3000],
    [' 120 ', 120_000],
    ['Wed, 01 Jan 2025 00:00:10 GMT', 10_000],
    ['Tue, 31 Dec 2024 23:59:00 GMT', 0], // in the past
    ['soon', undefined],
    ['-1', undefined],
    ['1.5', undefined],
  ])('%p is %p ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe('backoffDelay', () => {
  it.each([
    [1, 0.5, 50],
    [2, 0.5, 100],
    [3, 0.5, 200],
    [4, 0.999, 799],
    [5, 0.999, 999], // capped at maxDelayMs
    [30, 0.999, 999],
    [3, 0, 0], // full jitter goes down to zero
  ])('attempt %i with random %p waits %i ms', (attempt, random, expected) => {
    expect(backoffDelay(attempt, timing, () => random)).toBe(expected);
  });
});

describe('retryDelay', () => {
  it('takes Retry-After over the backoff, capped', () => {
    expect(retryDelay(statusFailure(503, { 'retry-after': '2' }), 1, timing, () => 0.5, 0)).toBe(2000);
    expect(retryDelay(statusFailure(429, { 'retry-after': '3600' }), 1, timing, () => 0.5, 0)).toBe(5000);
    expect(retryDelay(statusFailure(503, { 'retry-after': 'garbage' }), 1, timing, () => 0.5, 0)).toBe(50);
    expect(retryDelay({ kind: 'network', message: 'x' }, 2, timing, () => 0.5, 0)).toBe(100);
  });
});

import { OutboundFailure, OutboundResult, Send } from '../client/types';
import { RetryEvent, withRetries } from './with-retries';

function failure(status: number, headers: Record<string, string> = {}): OutboundResult {
  const response = { status, headers, body: '', durationMs: 1, redirects: 0 };
  return { ok: false, failure: { kind: 'http_status', message: `HTTP ${status}`, status, response }, attempts: 1 };
}

function failed(f: OutboundFailure): OutboundResult {
  return { ok: false, failure: f, attempts: 1 };
}

const success: OutboundResult = { ok: true, response: { status: 200, headers: {}, body: 'ok', durationMs: 1, redirects: 0 }, attempts: 1 };

/** A send answering from a script (its last answer repeated), and how often it was called. */
function scripted(...results: OutboundResult[]): { send: Send; calls: () => number } {
  let calls = 0;
  return { send: async () => results[Math.min(calls++, results.length - 1)], calls: () => calls };
}

describe('withRetries', () => {
  const sleeps: number[] = [];
  const retries: RetryEvent[] = [];
  const policy = {
    baseDelayMs: 100,
    maxDelayMs: 1000,
    random: () => 0.5,
    sleep: async (ms: number) => void sleeps.push(ms),
    onRetry: (event: RetryEvent) => void retries.push(event),
  };
  beforeEach(() => {
    sleeps.length = 0;
    retries.length = 0;
  });

  it('retries 503 until success and counts the attempts', async () => {
    const { send, calls } = scripted(failure(503), failure(503), success);
    const result = await withRetries({ ...policy, maxAttempts: 5 })(send)({ url: 'https://x/' });
    expect(result).toMatchObject({ ok: true, attempts: 3 });
    expect(calls()).toBe(3);
    expect(sleeps).toEqual([50, 100]);
    expect(retries).toEqual([
      { attempt: 1, kind: 'http_status', status: 503, delayMs: 50 },
      { attempt: 2, kind: 'http_status', status: 503, delayMs: 100 },
    ]);
  });

  it('gives up after maxAttempts with the last failure', async () => {
    const { send, calls } = scripted(failed({ kind: 'network', message: 'reset' }));
    const result = await withRetries({ ...policy, maxAttempts: 3 })(send)({ url: 'https://x/' });
    expect(result).toMatchObject({ ok: false, attempts: 3, failure: { kind: 'network' } });
    expect(calls()).toBe(3);
  });

  it.each<[string, OutboundResult]>([
    ['a 400', failure(400)],
    ['a 404', failure(404)],
    ['a blocked address', failed({ kind: 'blocked_address', message: 'b', host: 'h', address: '10.0.0.1', category: 'private' })],
    ['a body too large', failed({ kind: 'too_large', message: 'l', limitBytes: 1 })],
  ])('never retries %s', async (_, result) => {
    const { send, calls } = scripted(result, success);
    expect(await withRetries({ ...policy, maxAttempts: 5 })(send)({ url: 'https://x/' })).toMatchObject({ ok: false, attempts: 1 });
    expect(calls()).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('waits what Retry-After says, up to the cap', async () => {
    const { send } = scripted(failure(429, { 'retry-after': '2' }), failure(503, { 'retry-after': '999' }), success);
    await withRetries({ ...policy, maxAttempts: 3, maxRetryAfterMs: 10_000 })(send)({ url: 'https://x/' });
    expect(sleeps).toEqual([2000, 10_000]);
  });

  it('reads a Retry-After date against the injected clock', async () => {
    const { send } = scripted(failure(503, { 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), success);
    await withRetries({ ...policy, maxAttempts: 2, now: () => Date.parse('2025-01-01T00:00:00Z') })(send)({ url: 'https://x/' });
    expect(sleeps).toEqual([3000]);
  });

  it('adds up the attempts of a send that retries itself', async () => {
    const { send } = scripted({ ...failure(503), attempts: 2 }, { ...success, attempts: 2 });
    expect(await withRetries({ ...policy, maxAttempts: 2 })(send)({ url: 'https://x/' })).toMatchObject({ ok: true, attempts: 4 });
  });

  it('keeps retrying when the retry hook throws', async () => {
    const { send } = scripted(failure(503), success);
    const onRetry = () => {
      throw new Error('metrics down');
    };
    expect(await withRetries({ ...policy, onRetry, maxAttempts: 2 })(send)({ url: 'https://x/' })).toMatchObject({ ok: true });
  });

  it.each([0, -1, 1.5, NaN])('refuses maxAttempts %p', (maxAttempts) => {
    expect(() => withRetries({ maxAttempts })).toThrow(RangeError);
  });
});

import { RetryLaterError } from '@herald/contracts';
import { AuthFailureLimiter, presentedCredential } from './auth-failure-limiter';

function refusal(attempt: () => void): RetryLaterError | undefined {
  try {
    attempt();
    return undefined;
  } catch (error) {
    if (error instanceof RetryLaterError) return error;
    throw error;
  }
}

describe('AuthFailureLimiter', () => {
  let nowMs: number;
  const clock = { now: () => new Date(nowMs) };
  beforeEach(() => {
    nowMs = Date.UTC(2026, 0, 1);
  });

  it('refuses an address after its limit of failures, with the seconds left in its window, until the window ends', () => {
    const limiter = new AuthFailureLimiter({ perAddress: 3, perCredential: 100, windowSeconds: 60 }, clock);
    for (let guess = 0; guess < 3; guess++) {
      expect(refusal(() => limiter.refuseIfLimited('10.0.0.1', `Bearer guess-${guess}`))).toBeUndefined();
      limiter.recordFailure('10.0.0.1', `Bearer guess-${guess}`);
    }
    nowMs += 20_500;
    const refused = refusal(() => limiter.refuseIfLimited('10.0.0.1', 'Bearer the-right-key'));
    expect(refused).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 40 });
    expect(refused?.message).toMatch(/from this address/);
    // Another address with the right key is not affected.
    expect(refusal(() => limiter.refuseIfLimited('10.0.0.2', 'Bearer the-right-key'))).toBeUndefined();
    nowMs += 39_500;
    expect(refusal(() => limiter.refuseIfLimited('10.0.0.1', 'Bearer the-right-key'))).toBeUndefined();
  });

  it('refuses a credential failed from many addresses, for every address, while the window lasts', () => {
    const limiter = new AuthFailureLimiter({ perAddress: 100, perCredential: 5, windowSeconds: 10 }, clock);
    for (let address = 0; address < 5; address++) limiter.recordFailure(`10.0.1.${address}`, 'workspace_key:hwk_1');
    expect(refusal(() => limiter.refuseIfLimited('10.0.9.9', 'workspace_key:hwk_1'))).toMatchObject({ retryAfterSeconds: 10 });
    expect(refusal(() => limiter.refuseIfLimited('10.0.9.9', 'workspace_key:hwk_2'))).toBeUndefined();
    nowMs += 10_000;
    expect(refusal(() => limiter.refuseIfLimited('10.0.9.9', 'workspace_key:hwk_1'))).toBeUndefined();
  });

  it('starts a new window after one ends: old failures do not count', () => {
    const limiter = new AuthFailureLimiter({ perAddress: 2, perCredential: 100, windowSeconds: 1 }, clock);
    limiter.recordFailure('10.0.0.1', undefined);
    nowMs += 1_000;
    limiter.recordFailure('10.0.0.1', undefined);
    expect(refusal(() => limiter.refuseIfLimited('10.0.0.1', undefined))).toBeUndefined();
    limiter.recordFailure('10.0.0.1', undefined);
    expect(refusal(() => limiter.refuseIfLimited('10.0.0.1', undefined))).toBeDefined();
  });

  it('stays within its capacity under a flood of distinct credentials, and keeps counting the flooding address', () => {
    const limiter = new AuthFailureLimiter({ perAddress: 1_000_000, perCredential: 3, windowSeconds: 60 }, clock, 100);
    for (let guess = 0; guess < 10_000; guess++) limiter.recordFailure('10.0.0.1', `Bearer guess-${guess}`);
    expect(limiter.remembered).toEqual({ addresses: 1, credentials: 100 });
  });

  it('counts an SDK signature against its workspace key, anything else as presented', () => {
    expect(presentedCredential('hwk_abc:c2lnbmF0dXJl')).toBe('workspace_key:hwk_abc');
    expect(presentedCredential('Bearer hak_1')).toBe('Bearer hak_1');
    expect(presentedCredential('ServiceToken hst_1')).toBe('ServiceToken hst_1');
    expect(presentedCredential(undefined)).toBeUndefined();
  });
});

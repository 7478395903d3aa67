import { DEFAULT_DISPATCH_OPTIONS, retryDelayMs } from './dispatch-options';

describe('retryDelayMs', () => {
  it('doubles per attempt within half to all of the delay, capped', () => {
    const options = { ...DEFAULT_DISPATCH_OPTIONS, initialRetryDelayMs: 1_000, maxRetryDelayMs: 5_000 };
    expect([1, 2, 3].map((attempt) => retryDelayMs(options, attempt, 0))).toEqual([500, 1_000, 2_000]);
    expect([1, 2, 3].map((attempt) => retryDelayMs(options, attempt, 1))).toEqual([1_000, 2_000, 4_000]);
    expect(retryDelayMs(options, 10, 1)).toBe(5_000);
  });
});

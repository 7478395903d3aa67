import { resolvesWithin, withTimeout } from './timeouts';

describe('timeouts', () => {
  it('withTimeout answers what the promise answers in time, and rejects once the time is up', async () => {
    await expect(withTimeout(Promise.resolve('done'), 1_000)).resolves.toBe('done');
    await expect(withTimeout(new Promise(() => undefined), 10)).rejects.toThrow('no answer within 10 ms');
  });

  it('resolvesWithin says whether the promise resolved in time', async () => {
    await expect(resolvesWithin(Promise.resolve(), 1_000)).resolves.toBe(true);
    await expect(resolvesWithin(new Promise(() => undefined), 10)).resolves.toBe(false);
  });
});

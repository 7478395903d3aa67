import { ExpiringCache } from './workspace-credentials';

/** A load the test finishes when it chooses. */
function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: Error): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('ExpiringCache.load', () => {
  let now = 0;
  const cache = (): ExpiringCache<string | null> => new ExpiringCache<string | null>(5_000, 100, () => now);

  it('shares one load among the misses of a key that arrive while it runs, then serves the cached value until it expires', async () => {
    const c = cache();
    const pending = deferred<string | null>();
    let loads = 0;
    const load = () => {
      loads += 1;
      return pending.promise;
    };
    const waiting = Array.from({ length: 50 }, () => c.load('k', load));
    pending.resolve('v');
    expect(await Promise.all(waiting)).toEqual(Array.from({ length: 50 }, () => 'v'));
    expect(await c.load('k', load)).toBe('v');
    expect(loads).toBe(1);
    now += 5_000;
    await c.load('k', () => Promise.resolve('v2'));
    expect(c.get('k')).toBe('v2');
  });

  it('keeps only what `keep` accepts, and lets the next miss load again after a failed load', async () => {
    const c = cache();
    expect(await c.load('absent', () => Promise.resolve(null), (v) => v !== null)).toBeNull();
    expect(c.get('absent')).toBeUndefined();
    await expect(c.load('k', () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await c.load('k', () => Promise.resolve('back'))).toBe('back');
  });

  it('does not cache a load that a clear overtook: it read before the change', async () => {
    const c = cache();
    const stale = deferred<string | null>();
    const before = c.load('k', () => stale.promise);
    c.clear();
    const after = c.load('k', () => Promise.resolve('fresh'));
    stale.resolve('stale');
    expect(await before).toBe('stale');
    expect(await after).toBe('fresh');
    expect(c.get('k')).toBe('fresh');
  });
});

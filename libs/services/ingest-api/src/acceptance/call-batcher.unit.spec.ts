import { CallBatcher } from './call-batcher';

/** Work that records each batch and finishes only when the test says so. */
function controlledWork() {
  const batches: number[][] = [];
  const finish: Array<(fail?: Error) => void> = [];
  const work = (inputs: readonly number[]): Promise<string[]> => {
    batches.push([...inputs]);
    return new Promise((resolve, reject) => finish.push((fail) => (fail ? reject(fail) : resolve(inputs.map((n) => `r${n}`)))));
  };
  return { batches, finish, work };
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('CallBatcher', () => {
  it('sends a lone call at once and groups the calls that arrive while it runs into one batch', async () => {
    const { batches, finish, work } = controlledWork();
    const batcher = new CallBatcher(work, 1, 100);
    const first = batcher.call(1);
    const rest = [2, 3, 4].map((n) => batcher.call(n));
    await flush();
    expect(batches).toEqual([[1]]);
    finish[0]();
    expect(await first).toBe('r1');
    await flush();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    finish[1]();
    expect(await Promise.all(rest)).toEqual(['r2', 'r3', 'r4']);
  });

  it('keeps batches within maxBatch and runs up to maxInFlight at once', async () => {
    const { batches, finish, work } = controlledWork();
    const batcher = new CallBatcher(work, 2, 2);
    const calls = [1, 2, 3, 4, 5, 6, 7].map((n) => batcher.call(n));
    await flush();
    expect(batches).toEqual([[1], [2]]);
    finish[0]();
    await flush();
    expect(batches).toEqual([[1], [2], [3, 4]]);
    finish[1]();
    finish[2]();
    await flush();
    expect(batches).toEqual([[1], [2], [3, 4], [5, 6], [7]]);
    finish[3]();
    finish[4]();
    expect(await Promise.all(calls)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']);
  });

  it('fails every call of a failed batch, and only those', async () => {
    const { finish, work } = controlledWork();
    const batcher = new CallBatcher(work, 1, 100);
    const first = batcher.call(1);
    const second = [batcher.call(2), batcher.call(3)];
    await flush();
    finish[0](new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await flush();
    finish[1]();
    expect(await Promise.all(second)).toEqual(['r2', 'r3']);
  });
});

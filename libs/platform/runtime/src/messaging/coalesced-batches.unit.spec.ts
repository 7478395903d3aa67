import { coalescedBatches } from './coalesced-batches';

/** A handler that records each call's items and fails any call holding a poison item. */
function recordingHandler(fail: (items: readonly string[]) => Error | undefined = () => undefined) {
  const calls: string[][] = [];
  const handle = async (items: readonly string[]): Promise<void> => {
    calls.push([...items]);
    await new Promise((resolve) => setTimeout(resolve, 1));
    const error = fail(items);
    if (error) throw error;
  };
  return { calls, handle };
}

const connectionRefused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('coalescedBatches', () => {
  it('merges the batches handed over in one turn into one call, each batch in its order', async () => {
    const { calls, handle } = recordingHandler();
    const merged = coalescedBatches(handle, 500);
    await Promise.all([merged(['a1', 'a2']), merged(['b1']), merged(['c1', 'c2', 'c3'])]);
    expect(calls).toEqual([['a1', 'a2', 'b1', 'c1', 'c2', 'c3']]);
    // A later turn is a new call.
    await merged(['a3']);
    expect(calls).toEqual([['a1', 'a2', 'b1', 'c1', 'c2', 'c3'], ['a3']]);
  });

  it('keeps a merged call within the bound, and a batch larger than it whole', async () => {
    const { calls, handle } = recordingHandler();
    const merged = coalescedBatches(handle, 3);
    await Promise.all([merged(['a1', 'a2']), merged(['b1']), merged(['c1', 'c2']), merged(['d1', 'd2', 'd3', 'd4'])]);
    expect(calls.map((c) => c.join())).toEqual(['a1,a2,b1', 'c1,c2', 'd1,d2,d3,d4']);
  });

  it('after a failure that is not an outage, handles each batch alone: only the poison batch fails', async () => {
    const { calls, handle } = recordingHandler((items) => (items.includes('poison') ? new Error('cannot handle poison') : undefined));
    const merged = coalescedBatches(handle, 500);
    const results = await Promise.allSettled([merged(['a1']), merged(['b1', 'poison']), merged(['c1'])]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('cannot handle poison'));
    expect(calls).toEqual([['a1', 'b1', 'poison', 'c1'], ['a1'], ['b1', 'poison'], ['c1']]);
  });

  it('fails every batch of a call that an outage failed, without trying them alone', async () => {
    const { calls, handle } = recordingHandler(() => connectionRefused());
    const merged = coalescedBatches(handle, 500);
    const results = await Promise.allSettled([merged(['a1']), merged(['b1'])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toEqual([['a1', 'b1']]);
  });

  it('hands a lone batch over as it is, failing it with its own error', async () => {
    const { calls, handle } = recordingHandler(() => new Error('boom'));
    const merged = coalescedBatches(handle, 500);
    await expect(merged(['a1'])).rejects.toThrow('boom');
    expect(calls).toEqual([['a1']]);
  });
});

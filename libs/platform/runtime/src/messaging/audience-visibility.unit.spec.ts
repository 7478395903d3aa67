import { AcknowledgementWaits } from './audience-visibility';

/** Resolves with whether `done` settled within the current turn of microtasks. */
async function settled(done: Promise<void>): Promise<boolean> {
  let resolved = false;
  void done.then(() => (resolved = true));
  await new Promise((resolve) => setImmediate(resolve));
  return resolved;
}

describe('AcknowledgementWaits', () => {
  it('resolves a wait once every one of its ids is acknowledged, in any order and any grouping', async () => {
    const waits = new AcknowledgementWaits();
    const wait = waits.waitFor(['a', 'b', 'c']);
    waits.acknowledge(['c']);
    waits.acknowledge(['x', 'a']);
    expect(await settled(wait.done)).toBe(false);
    waits.acknowledge(['b']);
    expect(await settled(wait.done)).toBe(true);
    expect(waits.pending()).toBe(0);
  });

  it('counts an acknowledgement that came before the wait began', async () => {
    const waits = new AcknowledgementWaits();
    waits.acknowledge(['early']);
    expect(await settled(waits.waitFor(['early']).done)).toBe(true);
  });

  it('forgets the oldest acknowledgements past its limit', async () => {
    const waits = new AcknowledgementWaits(2);
    waits.acknowledge(['one', 'two', 'three']);
    expect(await settled(waits.waitFor(['one']).done)).toBe(false);
    expect(await settled(waits.waitFor(['three']).done)).toBe(true);
  });

  it('serves two waits of one id, and a cancelled wait leaves nothing behind', async () => {
    const waits = new AcknowledgementWaits();
    const first = waits.waitFor(['shared']);
    const second = waits.waitFor(['shared', 'other']);
    second.cancel();
    expect(waits.pending()).toBe(1);
    waits.acknowledge(['shared']);
    expect(await settled(first.done)).toBe(true);
    expect(await settled(second.done)).toBe(false);
    expect(waits.pending()).toBe(0);
  });
});

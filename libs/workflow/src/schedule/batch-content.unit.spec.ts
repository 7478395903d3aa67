import { BatchMode, RetainOrder } from '../definition';
import { digestShouldSend, eventsAtClose, retainEvents, sendsAtOnce } from './batch-content';

const events = (count: number): number[] => Array.from({ length: count }, (_, i) => i + 1);

describe('retainEvents', () => {
  it.each<readonly [string, number, number | undefined, RetainOrder | undefined, number[]]>([
    ['first 3 of 5', 5, 3, 'first', [1, 2, 3]],
    ['last 3 of 5, in arrival order', 5, 3, 'last', [3, 4, 5]],
    ['fewer events than the count: all of them', 2, 10, 'last', [1, 2]],
    ['a count of 1, last', 5, 1, 'last', [5]],
    ['the default count is 10, the default order first', 12, undefined, undefined, events(10)],
    ['the default count with order last', 12, undefined, 'last', events(12).slice(2)],
    ['the upper limit of 100', 150, 100, 'first', events(100)],
    ['no events', 0, 5, 'first', []],
  ])('%s', (_title, count, retainCount, retainOrder, kept) => {
    expect(retainEvents(events(count), retainCount, retainOrder)).toEqual(kept);
  });
});

describe('digestShouldSend', () => {
  it.each<readonly [number, number | undefined, boolean]>([
    [0, undefined, false],
    [1, undefined, true],
    [2, 3, false],
    [3, 3, true],
    [4, 3, true],
    [0, 1, false],
  ])('%i triggers with trigger_min_count %p: %p', (count, min, send) => {
    expect(digestShouldSend(count, min)).toBe(send);
  });
});

describe('batch modes', () => {
  it.each<readonly [BatchMode, boolean, boolean]>([
    ['accumulate_all', true, false],
    ['accumulate_all', false, false],
    ['flush_leading_item', true, true],
    ['flush_leading_item', false, false],
  ])('%s: an event that opens the batch %p is sent at once: %p', (mode, opens, atOnce) => {
    expect(sendsAtOnce(mode, opens)).toBe(atOnce);
  });

  it.each<readonly [BatchMode, number, number[]]>([
    ['accumulate_all', 3, [1, 2, 3]],
    ['flush_leading_item', 3, [2, 3]],
    ['flush_leading_item', 1, []],
  ])('%s with %i events sends %j at close', (mode, count, sent) => {
    expect(eventsAtClose(mode, events(count))).toEqual(sent);
  });
});

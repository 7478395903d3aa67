import { BatchMode, DEFAULT_DIGEST_RETAIN_COUNT, RetainOrder } from '../definition';

/**
 * The events a batch or digest keeps when it closes (interface 2.3, 8): at most
 * `retain_count` of them (1 to 100, default 10 for digest and batch alike), the earliest
 * (`first`, the default) or the latest (`last`), always in arrival order so that
 * templates list them as they happened. The count of all events is the caller's
 * `$batched_events_count`.
 */
export function retainEvents<T>(events: readonly T[], retainCount = DEFAULT_DIGEST_RETAIN_COUNT, retainOrder: RetainOrder = 'first'): readonly T[] {
  return retainOrder === 'first' ? events.slice(0, retainCount) : events.slice(Math.max(0, events.length - retainCount));
}

/** A digest is sent only if it holds at least trigger_min_count triggers (at least one by default). */
export function digestShouldSend(count: number, triggerMinCount = 1): boolean {
  return count >= Math.max(1, triggerMinCount);
}

/**
 * Whether an event is sent at once: in `flush_leading_item` mode the event that opens
 * a batch goes out immediately; in `accumulate_all` nothing does.
 */
export function sendsAtOnce(mode: BatchMode, opensBatch: boolean): boolean {
  return mode === 'flush_leading_item' && opensBatch;
}

/**
 * The events a batch sends when its window closes: all of them in `accumulate_all`;
 * in `flush_leading_item` those after the leading one, which was already sent, so a
 * batch that saw only its leading event sends nothing more.
 */
export function eventsAtClose<T>(mode: BatchMode, events: readonly T[]): readonly T[] {
  return mode === 'flush_leading_item' ? events.slice(1) : events;
}

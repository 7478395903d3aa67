import { classifyFailure } from '@herald/bus';

/**
 * Merges the batches a consumer's partitions hand over together into one call of
 * `handle`, of at most `maxItems` items (a larger batch goes alone, as before).
 *
 * Why: kafkajs fetches every partition a member owns at once, hands each partition's
 * batch to its own worker (`partitionsConsumedConcurrently` at a time), and fetches
 * again only once all of them are handled. Handled apart, each is its own read and its
 * own append transaction, four of them contending for the same Postgres, and a message
 * waits for the slowest of its fetch (flow bench, 2026-11-28: a quarter of the
 * partitions halved the latency at 100-300 triggers/s). Merged, a fetch costs one read
 * and one transaction. The batches that arrive in one turn of the event loop are
 * merged: the workers of one fetch start in the same turn.
 *
 * Each caller's promise settles with the merged call. If it fails for another reason
 * than an outage, each caller's batch is handled again on its own, so that one
 * partition's poison message fails only its own batch (which the registry then splits
 * to set it aside), not its neighbours'. Per partition the order holds: the bus hands a
 * partition's next batch only once the call with its previous one resolved.
 */
export function coalescedBatches<T>(handle: (items: readonly T[]) => Promise<void>, maxItems: number): (items: readonly T[]) => Promise<void> {
  let pending: Caller<T>[] = [];
  let pendingItems = 0;
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    const group = pending;
    pending = [];
    pendingItems = 0;
    if (group.length > 0) void handleGroup(handle, group);
  };

  return (items) =>
    new Promise<void>((resolve, reject) => {
      if (pendingItems > 0 && pendingItems + items.length > maxItems) flush();
      pending.push({ items, resolve, reject });
      pendingItems += items.length;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}

interface Caller<T> {
  readonly items: readonly T[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

async function handleGroup<T>(handle: (items: readonly T[]) => Promise<void>, group: readonly Caller<T>[]): Promise<void> {
  if (group.length > 1) {
    try {
      await handle(group.flatMap((caller) => caller.items));
      for (const caller of group) caller.resolve();
      return;
    } catch (error) {
      if (classifyFailure(error).kind === 'transient') {
        for (const caller of group) caller.reject(error);
        return;
      }
    }
  }
  await Promise.all(group.map((caller) => handle(caller.items).then(caller.resolve, caller.reject)));
}

/**
 * Coalesces calls made while a write is in flight into the next write: the first call
 * waits for the current turn of the event loop to end, so that calls made together share
 * one statement, and under load a batch grows to whatever arrived during the previous
 * write. One write at a time; each caller gets its own item's result, or the batch's error.
 */
export class WriteBatcher<I, O> {
  private queue: Array<{ readonly item: I; readonly resolve: (value: O) => void; readonly reject: (error: unknown) => void }> = [];
  private flushing?: Promise<void>;

  /** `write` resolves with one result per item, in the items' order. */
  constructor(
    private readonly write: (items: readonly I[]) => Promise<readonly O[]>,
    private readonly maxBatch = 500,
  ) {}

  run(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    try {
      await new Promise((resolve) => setImmediate(resolve));
      while (this.queue.length > 0) {
        const batch = this.queue.slice(0, this.maxBatch);
        this.queue = this.queue.slice(batch.length);
        try {
          const results = await this.write(batch.map((entry) => entry.item));
          batch.forEach((entry, index) => entry.resolve(results[index]));
        } catch (error) {
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }
}

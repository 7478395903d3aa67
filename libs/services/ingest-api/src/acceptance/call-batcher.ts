/** One statement's work for a group of calls: one result per input, in input order. */
export type BatchWork<In, Out> = (inputs: readonly In[]) => Promise<readonly Out[]>;

interface Waiting<In, Out> {
  readonly input: In;
  readonly resolve: (output: Out) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit for single-row statements: a call that arrives while `maxInFlight`
 * batches are running waits and goes out with the others that arrived meanwhile, as one
 * statement (one round trip, one commit). Alone, a call goes at once: batching adds no
 * wait when there is no load. A failed batch fails every call in it.
 */
export class CallBatcher<In, Out> {
  private waiting: Array<Waiting<In, Out>> = [];
  private inFlight = 0;

  constructor(
    private readonly work: BatchWork<In, Out>,
    private readonly maxInFlight: number,
    private readonly maxBatch: number,
  ) {}

  call(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.length > 0) {
      const batch = this.waiting.slice(0, this.maxBatch);
      this.waiting = this.waiting.slice(batch.length);
      this.inFlight++;
      void this.run(batch);
    }
  }

  private async run(batch: ReadonlyArray<Waiting<In, Out>>): Promise<void> {
    try {
      const outputs = await this.work(batch.map((w) => w.input));
      if (outputs.length !== batch.length) throw new Error(`a batch of ${batch.length} calls got ${outputs.length} results`);
      batch.forEach((w, index) => w.resolve(outputs[index]));
    } catch (error) {
      for (const w of batch) w.reject(error);
    } finally {
      this.inFlight--;
      this.pump();
    }
  }
}

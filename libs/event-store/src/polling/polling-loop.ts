import { sleep } from './sleep';

/**
 * Runs `tick` until stopped. `tick` returns how long to wait before the next one
 * (0: go again at once, the last round was a full batch) and must not throw.
 * `stop()` interrupts the wait but never a tick: it resolves once the tick in
 * flight has finished. `wake()` cuts the wait short, or, during a tick, skips the
 * wait after it (what woke it may have come after the tick looked).
 */
export class PollingLoop {
  private abort?: AbortController;
  private running?: Promise<void>;
  private nap?: AbortController;
  private woken = false;

  constructor(private readonly tick: () => Promise<number>) {}

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  start(): void {
    if (this.running) return;
    const abort = new AbortController();
    this.abort = abort;
    this.running = this.run(abort.signal);
  }

  async stop(): Promise<void> {
    this.abort?.abort();
    await this.running;
    this.abort = undefined;
    this.running = undefined;
  }

  wake(): void {
    this.woken = true;
    this.nap?.abort();
  }

  private async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      this.woken = false;
      const delayMs = await this.tick();
      if (signal.aborted) return;
      if (delayMs > 0 && !this.woken) await this.pause(delayMs, signal);
      // A busy loop still yields, so timers and I/O of the process get their turn.
      else await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private async pause(ms: number, stopped: AbortSignal): Promise<void> {
    const nap = new AbortController();
    const onStop = (): void => nap.abort();
    stopped.addEventListener('abort', onStop, { once: true });
    this.nap = nap;
    try {
      await sleep(ms, nap.signal);
    } finally {
      this.nap = undefined;
      stopped.removeEventListener('abort', onStop);
    }
  }
}

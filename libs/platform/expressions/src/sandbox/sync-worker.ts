import { MessageChannel, MessagePort, Worker, receiveMessageOnPort } from 'node:worker_threads';

/**
 * A synchronous, deadline-bounded call into a worker thread.
 *
 * The expression engines run untrusted workspace code (jq filters, Jsonnet scripts)
 * that can loop forever (`def f: f; f`, `repeat(1)`, a tail-recursive Jsonnet
 * function) or allocate without bound. Code running on the caller's own thread cannot
 * be interrupted, so the engine lives in a worker thread: the caller posts a request
 * and blocks on `Atomics.wait` with a deadline. When the deadline passes, the worker is
 * terminated (V8 stops WebAssembly and JavaScript alike) and a fresh one is started on
 * the next call. The caller's event loop is blocked only for the length of the call,
 * as it would be with an in-process engine.
 *
 * The worker gets an empty `process.env` (workspace code must never read server
 * secrets) and a capped V8 heap.
 */

export interface SyncWorkerOptions {
  /** Absolute path of the plain CommonJS worker script (it calls `serve` from sync-worker-host.js). */
  readonly script: string;
  /** Passed to the worker's `init` (structured-clonable: paths, WebAssembly.Module...). */
  readonly workerData?: Record<string, unknown>;
  /** How long a new worker may take to load its engine. */
  readonly startupTimeoutMs: number;
  /** V8 old-generation cap of the worker (WebAssembly memory is not counted). */
  readonly maxHeapMb: number;
}

export type SyncCallOutcome<T> =
  | { readonly kind: 'done'; readonly value: T }
  /** The deadline passed: the worker was terminated. */
  | { readonly kind: 'timeout'; readonly afterMs: number }
  /** The request made the engine throw (a WebAssembly trap: stack or memory exhausted): the worker was replaced. */
  | { readonly kind: 'crashed'; readonly message: string }
  /** The request could not be run (engine closed or not starting, a value that cannot be sent). */
  | { readonly kind: 'failed'; readonly message: string };

interface Live {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly signal: Int32Array;
  nextId: number;
  ready: boolean;
}

interface Reply {
  readonly id: number;
  readonly ok: boolean;
  readonly value?: unknown;
  readonly message?: string;
}

export class SyncWorker {
  private live?: Live;
  private closed = false;
  /** Workers started so far (the first one included): replacements show up here. */
  started = 0;

  constructor(private readonly options: SyncWorkerOptions) {}

  /** Runs one request; never throws. */
  call<T>(body: unknown, timeoutMs: number): SyncCallOutcome<T> {
    if (this.closed) return { kind: 'failed', message: 'the expression engine is closed' };
    let live: Live;
    try {
      live = this.live ?? this.spawn();
      if (!live.ready) this.awaitReady(live);
    } catch (error) {
      return { kind: 'failed', message: errorMessage(error) };
    }
    const id = live.nextId++;
    try {
      live.port.postMessage({ id, body });
    } catch (error) {
      // e.g. a value that cannot be cloned
      return { kind: 'failed', message: errorMessage(error) };
    }
    const reply = this.await(live, id, timeoutMs);
    if (reply === undefined) {
      this.recycle();
      return { kind: 'timeout', afterMs: timeoutMs };
    }
    if (reply.ok) return { kind: 'done', value: reply.value as T };
    this.recycle();
    return { kind: 'crashed', message: reply.message ?? 'the engine failed' };
  }

  /** Replaces the current worker. The new one loads its engine while the caller goes on. */
  recycle(): void {
    const live = this.live;
    this.live = undefined;
    if (live) {
      live.port.close();
      void live.worker.terminate().catch(() => undefined);
    }
    if (!this.closed) {
      try {
        this.spawn();
      } catch {
        // the next call tries again and reports the failure
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const live = this.live;
    this.live = undefined;
    if (live) {
      live.port.close();
      await live.worker.terminate().catch(() => undefined);
    }
  }

  private spawn(): Live {
    const signal = new Int32Array(new SharedArrayBuffer(4));
    Atomics.store(signal, 0, -1);
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(this.options.script, {
      workerData: { ...this.options.workerData, port: port2, signal },
      transferList: [port2],
      env: {},
      // Not the parent's flags: a TypeScript register hook (-r) would cost the worker ~300 ms to load.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb },
    });
    // A worker never keeps the process alive, and its crash is seen by the caller as a timeout.
    worker.unref();
    worker.on('error', () => undefined);
    this.started += 1;
    const live: Live = { worker, port: port1, signal, nextId: 1, ready: false };
    this.live = live;
    return live;
  }

  private awaitReady(live: Live): void {
    const ready = this.await(live, 0, this.options.startupTimeoutMs);
    if (!ready?.ok) {
      if (this.live === live) this.live = undefined;
      live.port.close();
      void live.worker.terminate().catch(() => undefined);
      throw new Error(ready?.message ?? `the expression worker did not start within ${this.options.startupTimeoutMs} ms`);
    }
    live.ready = true;
  }

  /** The reply with this id, or undefined when the deadline passed first. */
  private await(live: Live, id: number, timeoutMs: number): Reply | undefined {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const received = receiveMessageOnPort(live.port);
      if (received) {
        const reply = received.message as Reply;
        if (reply.id === id) return reply;
        continue; // a late reply to an earlier request
      }
      const current = Atomics.load(live.signal, 0);
      const remaining = deadline - performance.now();
      if (remaining <= 0) return undefined;
      if (current >= id) {
        // Announced but not yet visible on the port: wait a tick for the message.
        Atomics.wait(live.signal, 0, current, 1);
        continue;
      }
      Atomics.wait(live.signal, 0, current, remaining);
    }
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

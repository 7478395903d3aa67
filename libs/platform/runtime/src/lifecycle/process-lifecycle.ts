import { HealthRegistry } from '../health/health-registry';
import { HeraldLogger } from '../logging/logger';

interface ShutdownStep {
  readonly name: string;
  readonly run: () => Promise<void>;
}

/**
 * Graceful shutdown of one process. On SIGTERM or SIGINT: readiness turns false
 * (load balancers stop sending), then the steps run in the order added (consumers
 * and HTTP servers stop and finish in-flight work, then the producer flushes, then
 * the database closes), bounded by the configured timeout. A second signal or the
 * timeout forces the exit.
 */
export class ProcessLifecycle {
  private readonly steps: ShutdownStep[] = [];
  private shuttingDown?: Promise<number>;
  private firstSignalAt = 0;

  constructor(
    private readonly logger: HeraldLogger,
    private readonly health: HealthRegistry,
    private readonly timeoutMs: number,
    private readonly exit: (code: number) => void = (code) => process.exit(code),
  ) {}

  onShutdown(name: string, run: () => Promise<void>): void {
    this.steps.push({ name, run });
  }

  installSignalHandlers(): void {
    // A failure nobody handled leaves the process in an unknown state: log it as JSON
    // and stop the way a signal does, so in-flight work still finishes where it can.
    const fatal = (kind: string) => (error: unknown) => {
      this.logger.error(kind, error instanceof Error ? error : { error: String(error) });
      if (!this.shuttingDown) void this.shutdown(kind).then(() => this.exit(1));
    };
    process.on('uncaughtException', fatal('uncaught exception'));
    process.on('unhandledRejection', fatal('unhandled promise rejection'));
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.on(signal, () => {
        if (this.shuttingDown) {
          // A terminal's Ctrl-C reaches `npm` and this process together, and npm may
          // forward it once more: only a later, deliberate second signal forces the exit.
          if (Date.now() - this.firstSignalAt < 1_000) return;
          this.logger.warn('second signal: exiting now', { signal });
          this.exit(1);
          return;
        }
        this.firstSignalAt = Date.now();
        void this.shutdown(signal).then((code) => this.exit(code));
      });
    }
  }

  /**
   * Shuts down gracefully once the parent process is gone (this process was re-parented).
   * For a process started by `npm start`: npm forwards SIGTERM to the shell it runs the
   * script in, and a shell that did not exec node dies without passing it on, or npm itself
   * is killed outright; either way node would keep the ports and the data folder with
   * nobody left to stop it. Only for a parent whose end should end this process (npm's
   * script), not a shell an operator daemonised node from.
   */
  stopWithParent(options: { pollMs?: number; parentPid?: () => number } = {}): () => void {
    const parentPid = options.parentPid ?? (() => process.ppid);
    const parent = parentPid();
    const poll = setInterval(() => {
      if (parentPid() === parent || this.shuttingDown) return;
      clearInterval(poll);
      this.logger.warn('parent process exited: shutting down', { parent_pid: parent });
      void this.shutdown('parent process exited').then((code) => this.exit(code));
    }, options.pollMs ?? 500);
    poll.unref();
    return () => clearInterval(poll);
  }

  shutdown(reason: string): Promise<number> {
    this.shuttingDown ??= this.runSteps(reason);
    return this.shuttingDown;
  }

  private async runSteps(reason: string): Promise<number> {
    const started = Date.now();
    this.logger.info('shutting down', { reason, steps: this.steps.map((s) => s.name) });
    this.health.startDraining();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
      timer.unref();
    });
    let failed = false;
    for (const step of this.steps) {
      const stepStarted = Date.now();
      const outcome = await Promise.race([
        step.run().then(
          () => 'done' as const,
          (error: unknown) => {
            failed = true;
            this.logger.error(`shutdown step failed: ${step.name}`, error instanceof Error ? error : { error });
            return 'failed' as const;
          },
        ),
        timedOut,
      ]);
      if (outcome === 'timeout') {
        clearTimeout(timer);
        this.logger.error('shutdown timed out', { step: step.name, timeout_ms: this.timeoutMs });
        return 1;
      }
      this.logger.info('shutdown step finished', { step: step.name, outcome, ms: Date.now() - stepStarted });
    }
    clearTimeout(timer);
    this.logger.info('shutdown complete', { ms: Date.now() - started });
    return failed ? 1 : 0;
  }
}

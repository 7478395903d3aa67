export type HealthCheck = () => Promise<void>;

export interface ReadinessReport {
  readonly ready: boolean;
  readonly status: 'ok' | 'unavailable' | 'shutting_down';
  readonly checks: Record<string, { readonly status: 'ok' | 'failing'; readonly error?: string }>;
}

/**
 * What `/health/ready` asks: every dependency a service registered (its database,
 * the bus). Liveness asks nothing: a live process that cannot reach Kafka should
 * be taken out of rotation, not restarted.
 */
export class HealthRegistry {
  private readonly checks = new Map<string, HealthCheck>();
  private draining = false;

  register(name: string, check: HealthCheck): void {
    this.checks.set(name, check);
  }

  /** From now on the process reports not ready, so traffic drains away before it stops. */
  startDraining(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  async readiness(timeoutMs = 3_000): Promise<ReadinessReport> {
    const entries = await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        try {
          await withTimeout(check(), timeoutMs, `${name} did not answer within ${timeoutMs} ms`);
          return [name, { status: 'ok' as const }] as const;
        } catch (error) {
          return [name, { status: 'failing' as const, error: error instanceof Error ? error.message : String(error) }] as const;
        }
      }),
    );
    const checks = Object.fromEntries(entries);
    const allOk = entries.every(([, result]) => result.status === 'ok');
    if (this.draining) return { ready: false, status: 'shutting_down', checks };
    return { ready: allOk, status: allOk ? 'ok' : 'unavailable', checks };
  }
}

/**
 * Rejects with `message` once `promise` has had `ms` of event-loop time to settle. The
 * time is counted in ticks of at most 100 ms, and a tick that fires late (the loop was
 * busy with something else, a slow request) counts as one tick: otherwise the timer,
 * which runs before the I/O that settles the check, fails a healthy dependency for
 * the whole time the loop was blocked, and readiness flaps on one slow request.
 */
async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  const tickMs = Math.min(100, ms);
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        let spent = 0;
        let last = performance.now();
        const tick = (): void => {
          const now = performance.now();
          spent += Math.min(now - last, tickMs);
          last = now;
          if (spent >= ms) reject(new Error(message));
          else timer = setTimeout(tick, tickMs);
        };
        timer = setTimeout(tick, tickMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

import { createHash } from 'node:crypto';
import { RetryLaterError } from '@herald/contracts';
import type { AuthFailureLimits } from '../config/herald-config';
import type { Clock } from '../nest/tokens';

/** Keys remembered per kind (addresses, credentials): a flood of distinct ones evicts the least recently failed, memory stays bounded. */
const DEFAULT_CAPACITY = 50_000;

interface FailureWindow {
  failures: number;
  readonly endsAtMs: number;
}

/**
 * Failures per key in fixed windows that start at a key's first failure. At most
 * `capacity` keys: a Map keeps insertion order and a failure re-inserts its key, so
 * the first key is the least recently failed one and goes first, in O(1).
 */
class FailureWindows {
  private readonly windows = new Map<string, FailureWindow>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly capacity: number,
  ) {}

  /** Milliseconds until the key may try again, or undefined while it is under its limit. */
  blockedForMs(key: string, nowMs: number): number | undefined {
    const window = this.windows.get(key);
    if (window === undefined) return undefined;
    if (window.endsAtMs <= nowMs) {
      this.windows.delete(key);
      return undefined;
    }
    return window.failures >= this.limit ? window.endsAtMs - nowMs : undefined;
  }

  record(key: string, nowMs: number): void {
    const current = this.windows.get(key);
    this.windows.delete(key);
    if (current !== undefined && current.endsAtMs > nowMs) {
      current.failures += 1;
      this.windows.set(key, current);
      return;
    }
    if (this.windows.size >= this.capacity) {
      const leastRecent = this.windows.keys().next();
      if (!leastRecent.done) this.windows.delete(leastRecent.value);
    }
    this.windows.set(key, { failures: 1, endsAtMs: nowMs + this.windowMs });
  }

  get size(): number {
    return this.windows.size;
  }
}

/**
 * Limits failed authentications, per remote address and per credential presented (an
 * API key, a workspace key, a service token, a browser's public key and user), in
 * memory (so per replica). Past a limit, every attempt from that address or with that
 * credential is refused with 429 and Retry-After until its window ends, before it is
 * checked; successes are never counted, so a busy client with a good credential is
 * never slowed. The per-credential limit sits above the per-address one: one address
 * is stopped first, and a credential is locked for everyone only by many addresses.
 */
export class AuthFailureLimiter {
  private readonly addresses: FailureWindows;
  private readonly credentials: FailureWindows;

  constructor(
    limits: AuthFailureLimits,
    private readonly clock: Clock,
    capacity = DEFAULT_CAPACITY,
  ) {
    this.addresses = new FailureWindows(limits.perAddress, limits.windowSeconds * 1000, capacity);
    this.credentials = new FailureWindows(limits.perCredential, limits.windowSeconds * 1000, capacity);
  }

  /** Throws RetryLaterError (429, Retry-After in seconds) while the address or the credential is over its limit. */
  refuseIfLimited(address: string, credential: string | undefined): void {
    const nowMs = this.clock.now().getTime();
    const byAddress = this.addresses.blockedForMs(address, nowMs);
    if (byAddress !== undefined) throw tooMany('from this address', byAddress);
    if (credential === undefined) return;
    const byCredential = this.credentials.blockedForMs(keyOf(credential), nowMs);
    if (byCredential !== undefined) throw tooMany('with this credential', byCredential);
  }

  recordFailure(address: string, credential: string | undefined): void {
    const nowMs = this.clock.now().getTime();
    this.addresses.record(address, nowMs);
    if (credential !== undefined) this.credentials.record(keyOf(credential), nowMs);
  }

  /** Keys remembered (tests: the bound holds under a flood). */
  get remembered(): { readonly addresses: number; readonly credentials: number } {
    return { addresses: this.addresses.size, credentials: this.credentials.size };
  }
}

/**
 * The credential an Authorization header presents, for counting its failures: an SDK
 * signature `<workspace_key>:<signature>` counts against its workspace key (the
 * signature changes with every request); anything else (`Bearer <api key>`,
 * `ServiceToken <token>`) is the credential itself.
 */
export function presentedCredential(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization === '') return undefined;
  const signature = /^([^\s:]+):\S+$/.exec(authorization);
  return signature ? `workspace_key:${signature[1]}` : authorization;
}

/** A digest, not the credential: the map never holds a secret, and every key costs the same memory. */
function keyOf(credential: string): string {
  return createHash('sha256').update(credential).digest('base64url').slice(0, 32);
}

function tooMany(scope: string, blockedForMs: number): RetryLaterError {
  const seconds = Math.max(1, Math.ceil(blockedForMs / 1000));
  return new RetryLaterError(`too many failed authentications ${scope}; retry after ${seconds} s`, seconds);
}

import type { SendResult } from '../vendor.port';

/** A bearer token and when it stops being used (before the issuer's expiry, so it never expires in flight). */
export interface CachedToken {
  readonly token: string;
  readonly renewAt: number;
}

/**
 * Tokens by key (a vendor configuration version), fetched once however many sends
 * need one at the same time. A failed fetch is not cached: the next send tries again.
 */
export class AccessTokenCache {
  private readonly tokens = new Map<string, Promise<CachedToken>>();

  constructor(private readonly now: () => number = Date.now) {}

  async get(key: string, fetch: () => Promise<CachedToken>): Promise<string> {
    const cached = this.tokens.get(key);
    if (cached) {
      const token = await cached.catch(() => undefined);
      if (token && token.renewAt > this.now()) return token.token;
      if (this.tokens.get(key) === cached) this.tokens.delete(key);
    }
    return (await this.start(key, fetch)).token;
  }

  /** Forgets a token the vendor refused (revoked, expired early). */
  drop(key: string): void {
    this.tokens.delete(key);
  }

  private start(key: string, fetch: () => Promise<CachedToken>): Promise<CachedToken> {
    const existing = this.tokens.get(key);
    if (existing) return existing;
    const pending = fetch();
    this.tokens.set(key, pending);
    pending.catch(() => {
      if (this.tokens.get(key) === pending) this.tokens.delete(key);
    });
    return pending;
  }
}

/** A token endpoint's refusal, carried out of the cache's fetch as the send's result. */
export class TokenRequestFailed extends Error {
  constructor(readonly result: SendResult) {
    super(result.ok ? 'token request failed' : result.reason);
  }
}

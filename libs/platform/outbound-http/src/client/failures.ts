import { AddressVerdict } from '../address/address-policy';
import { OutboundFailure } from './types';

/** Raised inside the connection layer (lookup, socket creation), found again in axios's error chain. */
export class BlockedAddressError extends Error {
  constructor(
    readonly host: string,
    readonly verdict: AddressVerdict,
  ) {
    super(
      host === verdict.address
        ? `address ${host} (${verdict.category}) is not allowed`
        : `${host} resolves to ${verdict.address} (${verdict.category}), which is not allowed`,
    );
    this.name = 'BlockedAddressError';
  }
}

export class ConnectTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no connection within ${timeoutMs} ms`);
    this.name = 'ConnectTimeoutError';
  }
}

/** The request's own cause, found below axios's wrapper(s). */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current !== undefined && chain.length < 10; current = (current as { cause?: unknown }).cause) {
    chain.push(current);
    if (typeof current !== 'object' || current === null) break;
  }
  return chain;
}

function codeOf(chain: readonly unknown[]): string | undefined {
  for (const error of [...chain].reverse()) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function messageOf(chain: readonly unknown[]): string {
  const root = chain[chain.length - 1];
  return root instanceof Error && root.message ? root.message : String(root);
}

/**
 * What went wrong, from an error thrown while connecting, sending or reading. Only our
 * own error types and the deadline decide the kind; anything else is the network's.
 * The axios error is not kept: its config holds the request headers, credentials included.
 */
export function failureFromError(error: unknown, totalTimeoutMs: number, totalTimedOut: boolean): OutboundFailure {
  const chain = causes(error);
  const blocked = chain.find((e): e is BlockedAddressError => e instanceof BlockedAddressError);
  if (blocked) {
    const { host, verdict } = blocked;
    return { kind: 'blocked_address', message: blocked.message, host, address: verdict.address, category: verdict.category };
  }
  const connectTimeout = chain.find((e): e is ConnectTimeoutError => e instanceof ConnectTimeoutError);
  if (connectTimeout) return { kind: 'timeout', message: connectTimeout.message, phase: 'connect' };
  if (totalTimedOut) return { kind: 'timeout', message: `no complete response within ${totalTimeoutMs} ms`, phase: 'total' };
  const code = codeOf(chain);
  return { kind: 'network', message: messageOf(chain), ...(code === undefined ? {} : { code }) };
}

import { LookupAddress, promises as dns } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { Duplex } from 'node:stream';
import { checkAddress } from '../address/address-policy';
import { Cidr } from '../address/cidr';
import { BlockedAddressError, ConnectTimeoutError } from './failures';

/** Resolves a host name to all its addresses. */
export type Resolve = (hostname: string) => Promise<readonly LookupAddress[]>;

/** The system resolver, as every Node client uses it (hosts file included). */
export const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true });

export interface GuardOptions {
  readonly allow: readonly Cidr[];
  readonly resolve: Resolve;
  readonly connectTimeoutMs: number;
}

/** A pooled socket idle this long is closed; servers drop idle keep-alive sockets anyway. */
const IDLE_SOCKET_TIMEOUT_MS = 15_000;

type ConnectionCallback = (error: Error | null, socket: Duplex) => void;

/**
 * The addresses a host name may be connected to: the allowed ones among those it
 * resolves to. Node connects to what this returns and to nothing else, so a DNS
 * answer that changes between a check and the connect (rebinding) cannot slip through.
 */
async function allowedAddresses(hostname: string, family: number, options: GuardOptions): Promise<LookupAddress[]> {
  const resolved = (await options.resolve(hostname)).filter((a) => family === 0 || a.family === family);
  if (resolved.length === 0) throw Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' });
  const verdicts = resolved.map((entry) => ({ entry, verdict: checkAddress(entry.address, options.allow) }));
  const allowed = verdicts.filter(({ verdict }) => verdict.allowed).map(({ entry }) => entry);
  if (allowed.length === 0) throw new BlockedAddressError(hostname, verdicts[0].verdict);
  return allowed;
}

function familyNumber(family: number | 'IPv4' | 'IPv6' | undefined): number {
  if (family === 'IPv4') return 4;
  if (family === 'IPv6') return 6;
  return family ?? 0;
}

export function guardedLookup(options: GuardOptions): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    allowedAddresses(hostname, familyNumber(lookupOptions.family), options).then(
      (addresses) => {
        // With autoSelectFamily (Node's default) net asks for all addresses and tries them in turn.
        if (lookupOptions.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

/**
 * Opens a socket through `connect` after the checks net.connect cannot do itself: it
 * calls `lookup` for host names only, so an IP literal is checked here. The connect
 * timeout covers resolving, connecting and (for TLS) the handshake.
 */
function openGuarded(
  host: string | null | undefined,
  callback: ConnectionCallback | undefined,
  options: GuardOptions & { readonly readyEvent: 'connect' | 'secureConnect' },
  connect: () => Duplex | null | undefined,
): Duplex | null | undefined {
  if (host && isIP(host) !== 0) {
    const verdict = checkAddress(host, options.allow);
    if (!verdict.allowed) {
      const error = new BlockedAddressError(host, verdict);
      if (!callback) throw error;
      // Node's agent looks at the socket only when there is no error.
      callback(error, undefined as unknown as Duplex);
      return undefined;
    }
  }
  const socket = connect();
  if (socket) armConnectTimeout(socket, options.readyEvent, options.connectTimeoutMs);
  return socket;
}

function armConnectTimeout(socket: Duplex, readyEvent: string, timeoutMs: number): void {
  const timer = setTimeout(() => socket.destroy(new ConnectTimeoutError(timeoutMs)), timeoutMs);
  const disarm = (): void => clearTimeout(timer);
  socket.once(readyEvent, disarm);
  socket.once('close', disarm);
}

class GuardedHttpAgent extends http.Agent {
  constructor(private readonly guard: GuardOptions) {
    super({ keepAlive: true, timeout: IDLE_SOCKET_TIMEOUT_MS, lookup: guardedLookup(guard) });
  }

  override createConnection(options: http.ClientRequestArgs, callback?: ConnectionCallback): Duplex | null | undefined {
    return openGuarded(options.host, callback, { ...this.guard, readyEvent: 'connect' }, () => super.createConnection(options, callback));
  }
}

class GuardedHttpsAgent extends https.Agent {
  constructor(private readonly guard: GuardOptions) {
    super({ keepAlive: true, timeout: IDLE_SOCKET_TIMEOUT_MS, lookup: guardedLookup(guard) });
  }

  override createConnection(options: https.RequestOptions, callback?: ConnectionCallback): Duplex | null | undefined {
    return openGuarded(options.host, callback, { ...this.guard, readyEvent: 'secureConnect' }, () => super.createConnection(options, callback));
  }
}

export interface GuardedAgents {
  readonly http: http.Agent;
  readonly https: https.Agent;
}

/** Agents whose every new connection goes to an allowed address only. */
export function createGuardedAgents(options: GuardOptions): GuardedAgents {
  return { http: new GuardedHttpAgent(options), https: new GuardedHttpsAgent(options) };
}

import { readFileSync } from 'node:fs';
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpServerLimits } from '../config/herald-config';

/** File descriptors kept for everything but HTTP clients: database pools, Kafka, files, the embedded Postgres. */
const RESERVED_FILE_DESCRIPTORS = 256;
/** The total cap when the open-file limit is unknown or large. */
const DEFAULT_MAX_CONNECTIONS = 10_000;
/** The per-address cap at most: the benches in bench/ hold up to 500 connections from 127.0.0.1. */
const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 1_000;

export interface ConnectionCaps {
  readonly total: number;
  readonly perAddress: number;
}

/**
 * The caps of one HTTP server. Unset, the total stays below the process's open-file
 * limit, shared by the two servers of the embedded mode after a reserve for the
 * process's other files (a client that opens connections until the limit would
 * otherwise starve the database and the bus of descriptors); one address may hold half.
 */
export function resolveConnectionCaps(limits: HttpServerLimits, openFileLimit: number | undefined): ConnectionCaps {
  const derivedTotal =
    openFileLimit === undefined ? DEFAULT_MAX_CONNECTIONS : Math.max(16, Math.min(DEFAULT_MAX_CONNECTIONS, Math.floor((openFileLimit - RESERVED_FILE_DESCRIPTORS) / 2)));
  const total = limits.maxConnections ?? derivedTotal;
  const perAddress = Math.min(total, limits.maxConnectionsPerAddress ?? Math.max(1, Math.min(DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, Math.floor(total / 2))));
  return { total, perAddress };
}

/** The soft open-file limit of this process (Linux `/proc/self/limits`), or undefined where unknown. */
export function readOpenFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft !== undefined && /^\d+$/.test(soft) ? Number(soft) : undefined;
  } catch {
    return undefined;
  }
}

/** Counts open connections, in total and per remote address, and admits one only below both caps. */
export class ConnectionGate {
  private readonly perAddress = new Map<string, number>();
  private openCount = 0;

  constructor(readonly caps: ConnectionCaps) {}

  admit(address: string): boolean {
    const fromAddress = this.perAddress.get(address) ?? 0;
    if (this.openCount >= this.caps.total || fromAddress >= this.caps.perAddress) return false;
    this.perAddress.set(address, fromAddress + 1);
    this.openCount += 1;
    return true;
  }

  release(address: string): void {
    const fromAddress = this.perAddress.get(address) ?? 0;
    if (fromAddress <= 1) this.perAddress.delete(address);
    else this.perAddress.set(address, fromAddress - 1);
    this.openCount = Math.max(0, this.openCount - 1);
  }

  get open(): number {
    return this.openCount;
  }

  /** No further connection can be taken: readiness says so, and a balancer sends new clients elsewhere. */
  get full(): boolean {
    return this.openCount >= this.caps.total;
  }
}

/**
 * Options of `http.createServer` for the timeouts: headers and the whole request must
 * arrive in time (else 408 and the connection closed). Node checks them every
 * `connectionsCheckingInterval` (30 s by default): a fraction of the shorter timeout here.
 */
export function httpServerOptions(limits: HttpServerLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4))),
  };
}

/**
 * Applies the inactivity timeout and the connection caps to a Node HTTP server. A
 * connection over a cap is closed at once, before a byte of it is read, so a flood
 * from one address costs one descriptor for a moment each and leaves room for others.
 */
export function limitConnections(server: Server, limits: HttpServerLimits, gate: ConnectionGate): void {
  server.setTimeout(limits.connectionTimeoutMs);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  // Before Node's own listener: a refused socket is destroyed before the HTTP parser reads from it.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    if (!gate.admit(address)) {
      socket.destroy();
      return;
    }
    socket.once('close', () => gate.release(address));
  });
}

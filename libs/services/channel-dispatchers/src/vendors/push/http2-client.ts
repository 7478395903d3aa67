import { ClientHttp2Session, IncomingHttpHeaders, OutgoingHttpHeaders, connect, constants } from 'node:http2';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { Duplex } from 'node:stream';
import { AddressGuard } from '../net/address-guard';

export interface Http2Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A vendor answering with more than this is broken; stop reading. */
const MAX_BODY_BYTES = 64 * 1024;
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * HTTP/2 requests over one multiplexed session per origin, as APNs wants them (it
 * throttles providers that open a connection per notification). The session connects
 * to an address the outbound guard checked, so the address rule holds here too;
 * `https:` is TLS with ALPN h2 (the host name still verified), `http:` is cleartext
 * h2c, which only local test servers speak.
 */
export class Http2Client {
  private readonly sessions = new Map<string, Promise<ClientHttp2Session>>();

  constructor(private readonly guard: AddressGuard) {}

  /** Rejects when no answer arrived: a refused address (BlockedAddressError), the connection, the timeout. */
  async request(origin: string, headers: OutgoingHttpHeaders, body: string, timeoutMs: number): Promise<Http2Answer> {
    const session = await this.sessionFor(new URL(origin));
    return new Promise<Http2Answer>((resolve, reject) => {
      const stream = session.request(headers);
      const chunks: Buffer[] = [];
      let size = 0;
      let answer: IncomingHttpHeaders | undefined;
      stream.setTimeout(timeoutMs, () => {
        stream.close(constants.NGHTTP2_CANCEL);
        reject(new Error(`no answer within ${timeoutMs} ms`));
      });
      stream.on('response', (received) => (answer = received));
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (!answer) return reject(new Error('the stream ended without a response'));
        resolve({ status: Number(answer[':status']), headers: answer, body: Buffer.concat(chunks).toString('utf8') });
      });
      stream.on('error', reject);
      stream.end(body);
    });
  }

  close(): void {
    for (const pending of this.sessions.values()) pending.then((session) => session.close(), () => undefined);
    this.sessions.clear();
  }

  private sessionFor(origin: URL): Promise<ClientHttp2Session> {
    const key = origin.origin;
    const existing = this.sessions.get(key);
    if (existing) return existing;
    const pending = this.open(origin);
    this.sessions.set(key, pending);
    const forget = (): void => this.forget(key, pending);
    // A broken or closing session is replaced on the next request; its open streams fail on their own.
    pending.then((session) => {
      session.on('close', forget);
      session.on('goaway', forget);
      session.on('error', forget);
    }, forget);
    return pending;
  }

  private async open(origin: URL): Promise<ClientHttp2Session> {
    const hostname = origin.hostname.replace(/^\[|\]$/g, '');
    const address = await this.guard.addressOf(hostname);
    const session = connect(origin.origin, { createConnection: () => socketTo(origin, hostname, address) });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        session.destroy();
        reject(new Error(`could not connect to ${origin.host} within ${CONNECT_TIMEOUT_MS} ms`));
      }, CONNECT_TIMEOUT_MS);
      session.once('connect', () => {
        clearTimeout(timer);
        resolve(session);
      });
      // Stays attached: a session error without a listener would crash the process.
      session.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  private forget(key: string, pending: Promise<ClientHttp2Session>): void {
    if (this.sessions.get(key) === pending) this.sessions.delete(key);
  }
}

function socketTo(origin: URL, hostname: string, address: string): Duplex {
  const port = Number(origin.port || (origin.protocol === 'https:' ? 443 : 80));
  if (origin.protocol === 'http:') return net.connect({ host: address, port });
  return tls.connect({ host: address, port, servername: net.isIP(hostname) === 0 ? hostname : undefined, ALPNProtocols: ['h2'] });
}

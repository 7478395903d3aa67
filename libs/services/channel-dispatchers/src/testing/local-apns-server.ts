import { KeyObject } from 'node:crypto';
import { Http2Server, IncomingHttpHeaders, ServerHttp2Stream, createServer } from 'node:http2';
import { AddressInfo } from 'node:net';
import { verifiedJwt } from './jwt-check';

export interface ReceivedNotification {
  readonly deviceToken: string;
  readonly headers: IncomingHttpHeaders;
  /** The JWT's claims and header, once verified. */
  readonly jwt: { readonly header: Record<string, unknown>; readonly claims: Record<string, unknown> };
  readonly payload: Record<string, unknown>;
}

export interface ApnsIdentity {
  readonly publicKey: KeyObject;
  readonly keyId: string;
  readonly teamId: string;
  readonly bundleId: string;
}

/**
 * APNs' provider API on a local HTTP/2 server, cleartext (h2c: the client takes an
 * `http://` base URL for it). It checks what Apple checks: the ES256 provider token
 * against the key's public half, its key id, team and age, the topic, the push type;
 * then answers from a script of errors, else 200 with the apns-id.
 */
export class LocalApnsServer {
  readonly notifications: ReceivedNotification[] = [];
  /** HTTP/2 connections opened by clients. */
  sessions = 0;
  private readonly errors: Array<{ status: number; reason: string }> = [];

  private constructor(
    private readonly server: Http2Server,
    private readonly expected: ApnsIdentity,
  ) {}

  static async start(expected: ApnsIdentity): Promise<LocalApnsServer> {
    const server = createServer();
    const local = new LocalApnsServer(server, expected);
    server.on('session', () => (local.sessions += 1));
    server.on('stream', (stream, headers) => local.handle(stream, headers));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return local;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  failWith(...errors: Array<{ status: number; reason: string }>): void {
    this.errors.push(...errors);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const deviceToken = /^\/3\/device\/([^/]+)$/.exec(String(headers[':path']))?.[1];
      if (headers[':method'] !== 'POST' || !deviceToken) return answer(stream, 405, 'MethodNotAllowed');
      const jwt = verifiedJwt(String(headers.authorization ?? '').replace(/^bearer /, ''), 'ES256', this.expected.publicKey);
      const iat = jwt?.claims.iat;
      if (!jwt || jwt.header.kid !== this.expected.keyId || jwt.claims.iss !== this.expected.teamId || typeof iat !== 'number') {
        return answer(stream, 403, 'InvalidProviderToken');
      }
      if (Date.now() / 1000 - iat > 3600) return answer(stream, 403, 'ExpiredProviderToken');
      if (headers['apns-topic'] !== this.expected.bundleId) return answer(stream, 400, 'TopicDisallowed');
      if (headers['apns-push-type'] !== 'alert') return answer(stream, 400, 'InvalidPushType');
      this.notifications.push({ deviceToken, headers, jwt, payload: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
      const error = this.errors.shift();
      if (error) return answer(stream, error.status, error.reason);
      stream.respond({ ':status': 200, 'apns-id': String(headers['apns-id'] ?? 'generated-id') });
      stream.end();
    });
  }
}

function answer(stream: ServerHttp2Stream, status: number, reason: string): void {
  stream.respond({ ':status': status, 'content-type': 'application/json' });
  stream.end(JSON.stringify({ reason }));
}

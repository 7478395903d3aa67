import { KeyObject } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { verifiedJwt } from './jwt-check';

export interface FcmScriptedError {
  readonly status: number;
  readonly errorStatus: string;
  readonly errorCode?: string;
}

export interface ReceivedPush {
  readonly path: string;
  readonly authorization: string;
  readonly message: Record<string, unknown>;
}

/**
 * Google's OAuth token endpoint and FCM HTTP v1 on one local server. The token endpoint
 * checks the JWT-bearer grant as Google does (RS256 signature by the service account's
 * key, issuer, audience, scope, expiry) and issues short tokens; messages:send accepts
 * only a token it issued and answers from a script of errors, else with the message name.
 */
export class LocalFcmServer {
  readonly pushes: ReceivedPush[] = [];
  /** Assertions the token endpoint accepted, decoded. */
  readonly assertions: Array<Record<string, unknown>> = [];
  private readonly issued = new Set<string>();
  private readonly errors: FcmScriptedError[] = [];
  private server?: Server;

  private constructor(
    private readonly publicKey: KeyObject,
    private readonly clientEmail: string,
    private readonly now: () => number,
  ) {}

  /** `now`: the clock the expiry checks use, shared with a client whose clock a test moves. */
  static async start(publicKey: KeyObject, clientEmail: string, now: () => number = Date.now): Promise<LocalFcmServer> {
    const local = new LocalFcmServer(publicKey, clientEmail, now);
    local.server = createServer((request, response) => void local.handle(request, response));
    local.server.keepAliveTimeout = 1;
    await new Promise<void>((resolve) => local.server?.listen(0, '127.0.0.1', () => resolve()));
    return local;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  get tokenUri(): string {
    return `${this.url}/token`;
  }

  /** The next messages:send calls fail with these, in order. */
  failWith(...errors: FcmScriptedError[]): void {
    this.errors.push(...errors);
  }

  /** Makes every issued token unknown, as a revocation would. */
  revokeTokens(): void {
    this.issued.clear();
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    if (request.method === 'POST' && request.url === '/token') return this.token(body, response);
    if (request.method === 'POST' && /^\/v1\/projects\/[^/]+\/messages:send$/.test(request.url ?? '')) return this.send(request, body, response);
    reply(response, 404, { error: { code: 404, status: 'NOT_FOUND', message: 'no such path' } });
  }

  private token(body: string, response: ServerResponse): void {
    const form = new URLSearchParams(body);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return reply(response, 400, { error: 'unsupported_grant_type' });
    const jwt = verifiedJwt(form.get('assertion') ?? '', 'RS256', this.publicKey);
    const now = Math.floor(this.now() / 1000);
    const claims = jwt?.claims;
    const valid =
      claims &&
      claims.iss === this.clientEmail &&
      claims.aud === this.tokenUri &&
      claims.scope === 'https://www.googleapis.com/auth/firebase.messaging' &&
      typeof claims.iat === 'number' &&
      typeof claims.exp === 'number' &&
      claims.iat <= now + 60 &&
      claims.exp > now &&
      claims.exp - claims.iat <= 3600;
    if (!valid) return reply(response, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
    this.assertions.push(claims);
    const token = `ya29.local-${this.issued.size + 1}-${now}`;
    this.issued.add(token);
    reply(response, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
  }

  private send(request: IncomingMessage, body: string, response: ServerResponse): void {
    const authorization = request.headers.authorization ?? '';
    if (!this.issued.has(authorization.replace(/^Bearer /, ''))) {
      return reply(response, 401, { error: { code: 401, status: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.' } });
    }
    const { message } = JSON.parse(body) as { message: Record<string, unknown> };
    this.pushes.push({ path: request.url ?? '', authorization, message });
    const error = this.errors.shift();
    if (error) {
      const details = error.errorCode ? [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: error.errorCode }] : [];
      return reply(response, error.status, { error: { code: error.status, status: error.errorStatus, message: `scripted ${error.errorStatus}`, details } });
    }
    reply(response, 200, { name: `${(request.url ?? '').replace(/^\/v1\//, '').replace(/:send$/, '')}/0:${this.pushes.length}` });
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  response.end(JSON.stringify(body));
}

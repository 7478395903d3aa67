import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';

/** Who the provider says signed in, and how it misbehaves when a test asks it to. */
export interface TinyOidcUser {
  email: string;
  name?: string;
  email_verified?: boolean;
  /** Sign with a key the JWKS does not publish. */
  forgeSignature?: boolean;
  /** Put another nonce in the id_token. */
  wrongNonce?: boolean;
}

/**
 * An OpenID provider small enough to read in one sitting, for tests: discovery, a JWKS with
 * one RS256 key, an authorize endpoint that signs the current `user` in at once (no login
 * page), and a token endpoint that checks the PKCE verifier and the client before issuing
 * an id_token. Listens on 127.0.0.1 (port 0, or the one given).
 */
export class TinyOidcProvider {
  user: TinyOidcUser = { email: 'nobody@example.com' };
  /** The token requests it received (what the client sent). */
  readonly tokenRequests: URLSearchParams[] = [];
  private readonly keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  private readonly forger = generateKeyPairSync('rsa', { modulusLength: 2048 });
  private readonly codes = new Map<string, { clientId: string; redirectUri: string; nonce: string; challenge: string; user: TinyOidcUser }>();
  private server?: Server;
  issuer = '';

  constructor(readonly clientId: string) {}

  async start(port = 0): Promise<string> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.issuer;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.issuer);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration') {
      return send(200, { issuer: this.issuer, authorization_endpoint: `${this.issuer}/authorize`, token_endpoint: `${this.issuer}/token`, jwks_uri: `${this.issuer}/jwks` });
    }
    if (url.pathname === '/jwks') {
      return send(200, { keys: [{ ...this.keys.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' }] });
    }
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== this.clientId || q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256') return send(400, { error: 'invalid_request' });
      const code = randomBytes(16).toString('base64url');
      this.codes.set(code, { clientId: q.get('client_id')!, redirectUri: q.get('redirect_uri')!, nonce: q.get('nonce')!, challenge: q.get('code_challenge')!, user: { ...this.user } });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state')!);
      response.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (url.pathname === '/token' && request.method === 'POST') {
      let raw = '';
      for await (const chunk of request) raw += String(chunk);
      const form = new URLSearchParams(raw);
      this.tokenRequests.push(form);
      const grant = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (!grant || grant.clientId !== form.get('client_id') || grant.redirectUri !== form.get('redirect_uri') || createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) {
        return send(400, { error: 'invalid_grant' });
      }
      const now = Math.floor(Date.now() / 1000);
      const claims = {
        iss: this.issuer,
        aud: this.clientId,
        sub: `sub-${grant.user.email}`,
        email: grant.user.email,
        email_verified: grant.user.email_verified ?? true,
        name: grant.user.name,
        nonce: grant.user.wrongNonce ? 'another-nonce' : grant.nonce,
        iat: now,
        exp: now + 300,
      };
      const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'k1', typ: 'JWT' })).toString('base64url');
      const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
      const signature = sign('sha256', Buffer.from(`${header}.${payload}`), grant.user.forgeSignature ? this.forger.privateKey : this.keys.privateKey).toString('base64url');
      return send(200, { access_token: 'unused', token_type: 'Bearer', id_token: `${header}.${payload}.${signature}` });
    }
    send(404, { error: 'not_found' });
  }
}

import { Injectable, NestMiddleware } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { USER_TOKEN_HEADER } from './browser-authenticator';

/**
 * CORS for calls an operator's browser makes with an API key (`Authorization: Bearer`),
 * as the operator console, served by the management API on another origin, reads users,
 * lists and tenants and changes preferences and list members. Any origin may call, and
 * none with credentials: these calls carry the key in a header, never a cookie, so a page
 * can do nothing without already holding the workspace's key, and `*` forbids the browser
 * to attach ambient credentials.
 *
 * Browsers of the SDKs (a public key and a user token) are not this: a preflight asking
 * for the user token header is left to the route's own per-origin answer
 * (BrowserAuthenticator), and a request with a public key gets its headers there.
 */
@Injectable()
export class OperatorCors implements NestMiddleware {
  use(request: IncomingMessage, response: ServerResponse, next: () => void): void {
    if (request.method === 'OPTIONS') {
      const requested = String(request.headers['access-control-request-headers'] ?? '').toLowerCase();
      if (requested.includes(USER_TOKEN_HEADER)) return next();
      response.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, POST, PATCH, OPTIONS',
        'access-control-allow-headers': 'authorization, content-type',
        'access-control-max-age': '600',
      });
      response.end();
      return;
    }
    if (isBearer(request.headers.authorization)) response.setHeader('access-control-allow-origin', '*');
    next();
  }
}

/** Whether an Authorization header carries an API key (what the operator's calls send), not a browser's public key. */
export function isBearer(authorization: string | undefined): boolean {
  return typeof authorization === 'string' && /^bearer\s/i.test(authorization);
}

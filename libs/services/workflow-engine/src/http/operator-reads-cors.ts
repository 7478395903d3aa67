import { Injectable, NestMiddleware, RequestMethod } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * CORS for the reads an operator's browser makes with an API key: the runs of a trigger,
 * a run's log and the message log, as the operator console (served by the management
 * API, another origin) reads them. Any origin may read, and none with credentials:
 * these routes take only `Authorization: Bearer` (or an SDK signature), never a cookie,
 * so a page can read nothing here without already holding the workspace's key, and
 * `*` forbids the browser to attach ambient credentials. Preflights are answered here;
 * errors (401, 400) carry the header too, so the page can show why.
 */
@Injectable()
export class OperatorReadsCors implements NestMiddleware {
  use(request: IncomingMessage, response: ServerResponse, next: () => void): void {
    if (request.method === 'OPTIONS') {
      response.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, OPTIONS',
        'access-control-allow-headers': 'authorization',
        'access-control-max-age': '600',
      });
      response.end();
      return;
    }
    if (request.method === 'GET') response.setHeader('access-control-allow-origin', '*');
    next();
  }
}

/** The routes: GET /v1/workflow_run/, GET /v1/workflow_run/{id}/, GET /v1/message/ (and their preflights). */
export const OPERATOR_READ_ROUTES = [
  { path: 'v1/workflow_run', method: RequestMethod.ALL },
  { path: 'v1/workflow_run/:execution_id', method: RequestMethod.ALL },
  { path: 'v1/message', method: RequestMethod.ALL },
];

import { Injectable, NestMiddleware, RequestMethod } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * CORS for the reads an operator's browser makes with an API key: the runs of a trigger,
 * a run's log, the message log and its stats, as the operator console (served by the
 * management API, another origin) reads them, and the one write it makes here, cancelling
 * a run (`POST /v1/workflow_run/cancel/`). Any origin may call, and none with credentials:
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
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'authorization, content-type',
        'access-control-max-age': '600',
      });
      response.end();
      return;
    }
    if (request.method === 'GET' || request.method === 'POST') response.setHeader('access-control-allow-origin', '*');
    next();
  }
}

/** The routes: GET /v1/workflow_run/, GET /v1/workflow_run/{id}/, POST /v1/workflow_run/cancel/, GET /v1/message/, GET /v1/message/stats/ (and their preflights). */
export const OPERATOR_READ_ROUTES = [
  { path: 'v1/workflow_run', method: RequestMethod.ALL },
  { path: 'v1/workflow_run/:execution_id', method: RequestMethod.ALL },
  { path: 'v1/message', method: RequestMethod.ALL },
  { path: 'v1/message/stats', method: RequestMethod.ALL },
];

import { HttpRequest } from './run-events';

// Not in http.ts: run-state names the request a run waits on with it, and http.ts reaches
// run-state through run-scope (no import cycles).
/** `POST https://...`: how failures name a request. */
export const requestTarget = (request: HttpRequest): string => `${request.method} ${request.url}`;

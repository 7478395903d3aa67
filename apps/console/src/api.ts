/**
 * The console's only way out: the same public APIs as every client. The management API
 * (same origin, `Authorization: ServiceToken`) and the notification API (`{base_url}`,
 * another origin, `Authorization: Bearer` with an API key the console minted for this
 * session through the management API). The session lives in sessionStorage: it ends
 * with the tab, and nothing here logs it.
 */
import type { components as ManagementComponents, paths as ManagementPaths } from './generated/management-api';
import type { components as NotificationComponents, paths as NotificationPaths } from './generated/notification-api';

export interface Session {
  /** Empty for an operator's session: the HttpOnly cookie `herald_session` authenticates instead (the page never sees it). */
  readonly serviceToken: string;
  /** Who signed in with email and password or SSO; absent for a service token (which acts as an owner). */
  readonly operator?: Operator;
  readonly workspace: string;
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly apiKeyId: string;
}

const SESSION_KEY = 'herald.console.session';

export function loadSession(): Session | null {
  const raw = sessionStorage.getItem(SESSION_KEY);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as Session;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(SESSION_KEY);
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(describeError(status, body));
  }
}

function describeError(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const { detail, message } = body as { detail?: unknown; message?: unknown };
    if (typeof detail === 'string') return `${status}: ${detail}`;
    if (typeof message === 'string') return `${status}: ${message}`;
  }
  return `${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`;
}

async function call<T>(url: string, authorization: string, method = 'GET', body?: unknown): Promise<T> {
  // No authorization: the console's session cookie, which the management API takes only with this header (no other site can send it).
  const credential: Record<string, string> = authorization === '' ? { 'x-herald-console': '1' } : { authorization };
  const response = await fetch(url, {
    method,
    headers: { ...credential, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed as T;
}

/** `{management_url}`: the console's own origin. */
export function management<T>(serviceToken: string, path: string, method = 'GET', body?: unknown): Promise<T> {
  return call<T>(`/${path}`, serviceToken === '' ? '' : `ServiceToken ${serviceToken}`, method, body);
}

/** `{base_url}`: the notification API, with the session's API key. */
export function notification<T>(session: Session, path: string, method = 'GET', body?: unknown): Promise<T> {
  return call<T>(new URL(path, session.baseUrl).toString(), `Bearer ${session.apiKey}`, method, body);
}

/** What the management API tells the console about the installation (`/console/config.json`). */
export type Role = ManagementSchema<'Operator'>['role'];

/** An operator as the management API describes one. */
export type Operator = Pick<ManagementSchema<'Operator'>, 'id' | 'email' | 'name' | 'role' | 'status'>;

/** What the session may do: a service token is an owner. */
export function roleOf(session: Session): Role {
  return session.operator?.role ?? 'owner';
}

/** Editors and owners change definitions; viewers only read (the API refuses them anyway, 403). */
export function canChange(session: Session): boolean {
  return roleOf(session) !== 'viewer';
}

/** The operator this browser's session cookie belongs to, and whether SSO is offered. */
export async function operatorSession(): Promise<{ operator: Operator | null; sso: boolean }> {
  return management<{ operator: Operator | null; sso: boolean }>('', 'v1/operator_session/');
}

/** Email and password: the management API sets the session cookie. */
export async function signInWithPassword(email: string, password: string): Promise<Operator> {
  return (await management<{ operator: Operator }>('', 'v1/operator_session/', 'POST', { email, password })).operator;
}

/** Accepting an invitation sets the name and password, and signs in. */
export async function acceptInvitation(token: string, name: string, password: string): Promise<Operator> {
  return (await management<{ operator: Operator }>('', 'v1/operator_session/invitation/', 'POST', { token, name, password })).operator;
}

/** Uses a password reset link: the new password is set, the operator's other sessions end, and this browser is signed in. */
export async function resetPassword(token: string, password: string): Promise<Operator> {
  return (await management<{ operator: Operator }>('', 'v1/operator_session/password_reset/', 'POST', { token, password })).operator;
}

/**
 * The rest of an operator's sign-in (the cookie is set): the workspace, and an API key for
 * the notification API that the management API deletes when the session ends.
 */
export async function openOperatorSession(operator: Operator, baseUrl: string, wanted: string): Promise<Session> {
  const { results } = await management<{ results: Workspace[] }>('', 'v1/workspace/?limit=100');
  const workspace = wanted ? results.find((w) => w.slug === wanted) : results[0];
  if (!workspace) throw new Error(wanted ? `no workspace '${wanted}'` : 'the account has no workspace');
  const key = await management<{ id: string; api_key: string }>('', `v1/${workspace.slug}/console_api_key/`, 'POST');
  return { serviceToken: '', operator, workspace: workspace.slug, baseUrl: baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`, apiKey: key.api_key, apiKeyId: key.id };
}

export async function consoleConfig(): Promise<{ base_url: string | null }> {
  const response = await fetch('/console/config.json');
  return response.ok ? ((await response.json()) as { base_url: string | null }) : { base_url: null };
}

interface Workspace {
  readonly slug: string;
}

/** A session's API key stops working after this even if the tab is closed without signing out; sign in again then. */
const SESSION_KEY_LIFETIME_MS = 12 * 60 * 60 * 1000;

/**
 * Signing in: the service token must list the workspace; then an API key named for the
 * console is minted in it (shown once, kept for this tab only) for the notification API.
 */
export async function signIn(serviceToken: string, baseUrl: string, wanted: string): Promise<Session> {
  const { results } = await management<{ results: Workspace[] }>(serviceToken, 'v1/workspace/?limit=100');
  const workspace = wanted ? results.find((w) => w.slug === wanted) : results[0];
  if (!workspace) throw new Error(wanted ? `no workspace '${wanted}' for this service token` : 'this service token has no workspace');
  const key = await management<{ id: string; api_key: string }>(serviceToken, `v1/${workspace.slug}/ws_api_key/`, 'POST', {
    name: 'console session',
    description: `minted by the operator console at ${new Date().toISOString()}; deleted on sign-out, or when it expires`,
    expires_at: new Date(Date.now() + SESSION_KEY_LIFETIME_MS).toISOString(),
  });
  return { serviceToken, workspace: workspace.slug, baseUrl: baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`, apiKey: key.api_key, apiKeyId: key.id };
}

/** Signing out deletes the session's API key, so it is useless wherever it may have leaked. */
export async function signOut(session: Session): Promise<void> {
  try {
    // An operator's session ends on the server, which deletes its API key too.
    if (session.operator) return void (await management('', 'v1/operator_session/', 'DELETE'));
    await management(session.serviceToken, `v1/${session.workspace}/ws_api_key/${session.apiKeyId}/`, 'DELETE');
  } finally {
    saveSession(null);
  }
}

export function ws(session: Session, path: string, version: 'v1' | 'v2' = 'v1'): string {
  return `${version}/${encodeURIComponent(session.workspace)}/${path}`;
}

/**
 * The APIs' own types, generated from their OpenAPI documents (tools/console/api-types.ts),
 * which the integration tests check every response against: the console declares no copy.
 */
type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type AnswerOf<Operation, Status extends number> = Operation extends { responses: infer R } ? (Status extends keyof R ? JsonBody<R[Status]> : never) : never;

/** A component schema of `{management_url}/openapi.json`. */
export type ManagementSchema<Name extends keyof ManagementComponents['schemas']> = ManagementComponents['schemas'][Name];
/** A component schema of `{base_url}/openapi.json`. */
export type NotificationSchema<Name extends keyof NotificationComponents['schemas']> = NotificationComponents['schemas'][Name];
/** What a management route answers with `Status` (200 unless given). */
export type ManagementAnswer<Path extends keyof ManagementPaths, Method extends keyof ManagementPaths[Path], Status extends number = 200> = AnswerOf<ManagementPaths[Path][Method], Status>;
/** What a notification API route answers with `Status` (200 unless given). */
export type NotificationAnswer<Path extends keyof NotificationPaths, Method extends keyof NotificationPaths[Path], Status extends number = 200> = AnswerOf<NotificationPaths[Path][Method], Status>;

import { randomUUID } from 'node:crypto';
import { TinyOidcProvider } from './testing/tiny-oidc-provider';
import { ManagementTestApp, startManagementTestApp } from '../testing/management-test-app';
import { openApiProblems } from '../testing/openapi-response-check';

const OWNER = { email: 'owner@example.com', password: 'correct horse battery' };
const CLIENT_ID = 'herald-console';

interface Answer {
  readonly status: number;
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly headers: Headers;
}

/**
 * Operators, console sessions, roles, SSO and the audit log, wired in management-api on
 * the embedded database (the repositories' own specs run both databases). One app for
 * every case: the cases build on each other like an account's first day.
 */
describe('operators, roles and the audit log (management-api)', () => {
  let t: ManagementTestApp;
  const idp = new TinyOidcProvider(CLIENT_ID);

  beforeAll(async () => {
    const issuer = await idp.start();
    t = await startManagementTestApp(
      { kind: 'embedded' },
      {
        env: {
          HERALD_BOOTSTRAP_OPERATOR_EMAIL: OWNER.email,
          HERALD_BOOTSTRAP_OPERATOR_PASSWORD: OWNER.password,
          HERALD_OIDC_ISSUER: issuer,
          HERALD_OIDC_CLIENT_ID: CLIENT_ID,
          HERALD_AUTH_MAX_FAILURES_PER_CREDENTIAL: '3',
        },
      },
    );
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await idp.stop();
  });

  /** A call as the console makes it: the session cookie and the console header; the answer checked against the OpenAPI. */
  async function call(method: string, path: string, options: { body?: unknown; cookie?: string; consoleHeader?: boolean; token?: string } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (options.cookie) headers.cookie = options.cookie;
    if (options.cookie && options.consoleHeader !== false) headers['x-herald-console'] = '1';
    if (options.token) headers.authorization = `ServiceToken ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${t.app.url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), redirect: 'manual' });
    const text = await response.text();
    const body: unknown = text ? JSON.parse(text) : '';
    // Redirects (SSO) have no body for the checker to compare.
    const problems = response.status === 302 ? [] : openApiProblems(method, `${t.app.url}${path}`, response.status, body);
    if (problems.length > 0) throw new Error(`${method} ${path}: the answer does not match the OpenAPI description:\n${problems.join('\n')}`);
    return { status: response.status, body, headers: response.headers };
  }

  /** The session cookie a sign-in answer sets, as a Cookie header. */
  function cookieOf(answer: { headers: Headers }, name = 'herald_session'): string {
    const cookie = answer.headers.getSetCookie().find((value) => value.startsWith(`${name}=`));
    if (!cookie) throw new Error(`no ${name} cookie in ${JSON.stringify(answer.headers.getSetCookie())}`);
    return cookie.split(';')[0];
  }


  async function invite(cookie: string, email: string, role: string): Promise<{ id: string; token: string }> {
    const answer = await call('POST', 'v1/operator/', { cookie, body: { email, role } });
    expect(answer.status).toBe(201);
    return { id: answer.body.id, token: answer.body.invitation.token };
  }

  let ownerCookie: string;
  let editorCookie: string;
  let viewerCookie: string;
  let editorId: string;
  let viewerId: string;

  it('signs the first owner (from the environment) in with an HttpOnly cookie, and refuses wrong passwords alike for known and unknown addresses', async () => {
    const wrong = await call('POST', 'v1/operator_session/', { body: { email: OWNER.email, password: 'not the password' } });
    const unknown = await call('POST', 'v1/operator_session/', { body: { email: 'nobody@example.com', password: OWNER.password } });
    expect([wrong.status, wrong.body.message]).toEqual([401, 'wrong email or password']);
    expect([unknown.status, unknown.body.message]).toEqual([401, 'wrong email or password']);

    const signedIn = await call('POST', 'v1/operator_session/', { body: { email: OWNER.email.toUpperCase(), password: OWNER.password } });
    expect(signedIn.status).toBe(201);
    expect(signedIn.body.operator).toMatchObject({ email: OWNER.email, role: 'owner', status: 'active', has_password: true });
    const setCookie = signedIn.headers.getSetCookie().find((value) => value.startsWith('herald_session='))!;
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Lax/);
    expect(JSON.stringify(signedIn.body)).not.toContain(setCookie.split(';')[0].split('=')[1]);
    ownerCookie = cookieOf(signedIn);

    expect((await call('GET', 'v1/operator_session/', { cookie: ownerCookie })).body).toMatchObject({ operator: { email: OWNER.email }, sso: true });
    // Without the console header the cookie is worth nothing (a cross-site request cannot add it).
    expect((await call('GET', 'v1/operator_session/', { cookie: ownerCookie, consoleHeader: false })).body.operator).toBeNull();
    expect((await call('GET', 'v1/workspace/', { cookie: ownerCookie, consoleHeader: false })).status).toBe(401);
    expect((await call('GET', 'v1/workspace/', { cookie: ownerCookie })).status).toBe(200);
    // No session at all: 200 with no operator, so a console loading logs no error.
    expect((await call('GET', 'v1/operator_session/')).body).toEqual({ operator: null, expires_at: null, sso: true });
  });

  it('limits failed sign-ins per email: past the limit even the right password waits (429)', async () => {
    const target = 'limited@example.com';
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect((await call('POST', 'v1/operator_session/', { body: { email: target, password: 'wrong-password-1' } })).status).toBe(401);
    }
    const limited = await call('POST', 'v1/operator_session/', { body: { email: target, password: 'wrong-password-1' } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('invites people with single-use links; accepting sets a password that follows the rules and signs in', async () => {
    const editor = await invite(ownerCookie, 'editor@example.com', 'editor');
    // A service token is an owner too (how the first owner is invited without the environment's).
    const viewer = await call('POST', 'v1/operator/', { token: t.token, body: { email: 'viewer@example.com', role: 'viewer' } });
    expect(viewer.status).toBe(201);
    expect(viewer.body.invitation.accept_url).toMatch(/\/console\/accept-invitation\?token=hoi_/);
    expect((await call('POST', 'v1/operator/', { cookie: ownerCookie, body: { email: OWNER.email, role: 'viewer' } })).status).toBe(409);
    const invalid = await call('POST', 'v1/operator/', { cookie: ownerCookie, body: { email: 'not-an-address', role: 'admin' } });
    expect(invalid.status).toBe(400);
    expect(JSON.stringify(invalid.body)).toMatch(/email.*role|role.*email/s);

    const weak = await call('POST', 'v1/operator_session/invitation/', { body: { token: editor.token, name: 'Eddie', password: 'aaaaaaaaaaaaaaa' } });
    expect(weak.status).toBe(400);
    expect(weak.body.detail ?? weak.body.message).toBeDefined();
    expect(JSON.stringify(weak.body)).toContain('at least 5 different characters');

    const accepted = await call('POST', 'v1/operator_session/invitation/', { body: { token: editor.token, name: 'Eddie', password: 'a long passphrase for Eddie' } });
    expect(accepted.status).toBe(201);
    expect(accepted.body.operator).toMatchObject({ email: 'editor@example.com', name: 'Eddie', role: 'editor', status: 'active' });
    editorCookie = cookieOf(accepted);
    editorId = editor.id;
    // Single use.
    expect((await call('POST', 'v1/operator_session/invitation/', { body: { token: editor.token, name: 'Again', password: 'a long passphrase for Eddie' } })).status).toBe(404);

    const viewerAccepted = await call('POST', 'v1/operator_session/invitation/', { body: { token: viewer.body.invitation.token, name: 'Vi', password: 'read-only and 42 more' } });
    viewerCookie = cookieOf(viewerAccepted);
    viewerId = viewer.body.id;

    const listed = await call('GET', 'v1/operator/', { cookie: viewerCookie });
    expect(listed.body.results.map((o: { email: string; role: string }) => `${o.email}:${o.role}`)).toEqual(['owner@example.com:owner', 'editor@example.com:editor', 'viewer@example.com:viewer']);
  });

  it('enforces roles on every route: a viewer reads (secrets hidden), an editor changes definitions, only owners touch credentials and people', async () => {
    const workflow = { name: 'Welcome', trigger_type: 'api', tree: { nodes: [{ name: 'Wait', node_type: 'delay', delay_type: 'fixed', duration: '0d0h0m2s' }] } };
    const refused = await call('POST', 'v1/staging/workflow/welcome/', { cookie: viewerCookie, body: workflow });
    expect([refused.status, refused.body.error_code]).toEqual([403, 'permission_denied']);
    expect(refused.body.message).toContain('needs the editor role');
    // Checking a document changes nothing: viewers may.
    expect((await call('POST', 'v1/staging/workflow/welcome/validate/', { cookie: viewerCookie, body: workflow })).status).toBe(200);
    expect([200, 201]).toContain((await call('POST', 'v1/staging/workflow/welcome/', { cookie: editorCookie, body: workflow })).status);
    expect((await call('POST', 'v1/staging/ws_key/', { cookie: editorCookie, body: { name: 'ci' } })).status).toBe(403);
    expect((await call('PATCH', `v1/operator/${viewerId}/`, { cookie: editorCookie, body: { role: 'owner' } })).status).toBe(403);

    const created = await call('POST', 'v1/staging/ws_key/', { cookie: ownerCookie, body: { name: 'ci' } });
    expect(created.status).toBe(201);
    const secret: string = created.body.secret;
    const asOwner = await call('GET', 'v1/staging/ws_key/', { cookie: ownerCookie });
    const asViewer = await call('GET', 'v1/staging/ws_key/', { cookie: viewerCookie });
    expect(asOwner.body.results.map((key: { secret: string }) => key.secret)).toContain(secret);
    expect(JSON.stringify(asViewer.body)).not.toContain(secret);
    expect(asViewer.body.results.every((key: { secret: string }) => /^.{8}\*{12}$/.test(key.secret))).toBe(true);
  });

  it('records every change with who, what, when, before and after (secrets redacted), readable newest first with filters and pages', async () => {
    const endpoint = await call('POST', 'v1/staging/webhook_endpoint/', { cookie: editorCookie, body: { url: 'https://hooks.example.com/herald', event_types: ['delivered'] } });
    expect(endpoint.status).toBe(201);
    expect((await call('PATCH', `v1/operator/${editorId}/`, { cookie: ownerCookie, body: { role: 'viewer' } })).status).toBe(200);
    expect((await call('PATCH', `v1/operator/${editorId}/`, { cookie: ownerCookie, body: { role: 'editor' } })).status).toBe(200);
    const changed = { name: 'Welcome v2', trigger_type: 'api', tree: { nodes: [{ name: 'Wait', node_type: 'delay', delay_type: 'fixed', duration: '0d0h0m5s' }] } };
    expect([200, 201]).toContain((await call('POST', 'v1/staging/workflow/welcome/', { token: t.token, body: changed })).status);

    const log = await call('GET', 'v1/audit_log/?limit=200', { cookie: viewerCookie });
    expect(log.status).toBe(200);
    const entries: Array<Record<string, any>> = log.body.results; // eslint-disable-line @typescript-eslint/no-explicit-any
    const kinds = entries.map((entry) => `${entry.method} ${entry.resource_type} by ${entry.actor.name}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'POST operator by owner@example.com',
        'POST operator by bootstrap',
        'POST operator by editor@example.com',
        'POST workflow by editor@example.com',
        'POST workflow by bootstrap',
        'POST ws_key by owner@example.com',
        'POST webhook_endpoint by editor@example.com',
        'PATCH operator by owner@example.com',
      ]),
    );
    // Refusals (403, 400) and reads change nothing and are not recorded.
    expect(entries.filter((entry) => entry.actor.name === 'viewer@example.com' && entry.resource_type === 'workflow')).toEqual([]);

    const workflowUpdate = entries.find((entry) => entry.resource_type === 'workflow' && entry.actor.kind === 'service_token')!;
    expect(workflowUpdate).toMatchObject({ workspace: 'staging', route: '/v1/:workspace/workflow/:slug', resource_ids: { slug: 'welcome' } });
    expect(JSON.stringify(workflowUpdate.before)).toContain('0d0h0m2s');
    expect(JSON.stringify(workflowUpdate.after)).toContain('0d0h0m5s');
    const demotion = entries.find((entry) => entry.method === 'PATCH' && entry.after?.role === 'viewer')!;
    expect([demotion.before.role, demotion.after.role, demotion.resource_ids.id]).toEqual(['editor', 'viewer', editorId]);
    const keyCreated = entries.find((entry) => entry.resource_type === 'ws_key')!;
    expect(keyCreated.after.secret).toBe('[redacted]');
    const hook = entries.find((entry) => entry.resource_type === 'webhook_endpoint')!;
    expect(hook.after.secret).toBe('[redacted]');
    expect(hook.after.url).toBe('https://hooks.example.com/herald');

    const operatorsOnly = await call('GET', 'v1/audit_log/?resource_type=operator&method=PATCH&limit=1', { cookie: ownerCookie });
    expect(operatorsOnly.body.results).toHaveLength(1);
    expect(operatorsOnly.body.results[0].after.role).toBe('editor');
    const next = await call('GET', `v1/audit_log/?resource_type=operator&method=PATCH&limit=1&before=${operatorsOnly.body.meta.next_before}`, { cookie: ownerCookie });
    expect(next.body.results.map((entry: { after: { role: string } }) => entry.after.role)).toEqual(['viewer']);
    const bad = await call('GET', 'v1/audit_log/?limit=0&since=yesterday', { cookie: ownerCookie });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/limit[\s\S]*since/);
  });

  it('resets a password with a single-use link an owner hands over: the old one works until it is used, which ends every session', async () => {
    const EDDIE_OLD = 'a long passphrase for Eddie';
    const EDDIE_NEW = 'a newer passphrase, 2nd';
    const signIn = (password: string) => call('POST', 'v1/operator_session/', { body: { email: 'editor@example.com', password } });
    expect((await call('POST', `v1/operator/${viewerId}/password_reset/`, { cookie: editorCookie })).status).toBe(403);
    const replaced = await call('POST', `v1/operator/${editorId}/password_reset/`, { cookie: ownerCookie });
    expect(replaced.status).toBe(201);
    const issued = await call('POST', `v1/operator/${editorId}/password_reset/`, { cookie: ownerCookie });
    expect(issued.body.reset_url).toMatch(/\/console\/reset-password\?token=hor_/);
    const token = issued.body.token as string;
    // Only active operators of the account: an unknown id, and an invited one (it accepts its invitation instead).
    expect((await call('POST', `v1/operator/${randomUUID()}/password_reset/`, { cookie: ownerCookie })).status).toBe(404);
    const pending = await invite(ownerCookie, 'pending@example.com', 'viewer');
    expect((await call('POST', `v1/operator/${pending.id}/password_reset/`, { cookie: ownerCookie })).status).toBe(404);
    // An invitation is no reset link, nor a reset link an invitation.
    expect((await call('POST', 'v1/operator_session/password_reset/', { body: { token: pending.token, password: EDDIE_NEW } })).status).toBe(404);
    expect((await call('POST', 'v1/operator_session/invitation/', { body: { token, name: 'x', password: EDDIE_NEW } })).status).toBe(404);

    // Until the link is used the old password still signs in.
    const otherBrowser = cookieOf(await signIn(EDDIE_OLD));
    const weak = await call('POST', 'v1/operator_session/password_reset/', { body: { token, password: 'aaaaaaaaaaaaaaa' } });
    expect(weak.status).toBe(400);
    expect(JSON.stringify(weak.body)).toContain('at least 5 different characters');
    // The link replaced by the newer one no longer works.
    expect((await call('POST', 'v1/operator_session/password_reset/', { body: { token: replaced.body.token, password: EDDIE_NEW } })).status).toBe(404);

    const reset = await call('POST', 'v1/operator_session/password_reset/', { body: { token, password: EDDIE_NEW } });
    expect(reset.status).toBe(201);
    expect(reset.body.operator).toMatchObject({ id: editorId, email: 'editor@example.com', role: 'editor' });
    for (const ended of [editorCookie, otherBrowser]) expect((await call('GET', 'v1/workspace/', { cookie: ended })).status).toBe(401);
    editorCookie = cookieOf(reset);
    expect((await call('GET', 'v1/workspace/', { cookie: editorCookie })).status).toBe(200);
    expect((await signIn(EDDIE_OLD)).status).toBe(401);
    expect((await signIn(EDDIE_NEW)).status).toBe(201);
    expect((await call('POST', 'v1/operator_session/password_reset/', { body: { token, password: 'yet another passphrase 3' } })).status).toBe(404);

    // Both steps are in the audit log, the token and the password in neither.
    const audit = await call('GET', 'v1/audit_log/?resource_type=operator&limit=20', { cookie: ownerCookie });
    const routes = audit.body.results.map((entry: { route: string }) => entry.route);
    expect(routes).toEqual(expect.arrayContaining(['/v1/operator/:id/password_reset', '/v1/operator_session/password_reset']));
    expect(JSON.stringify(audit.body)).not.toContain(token);
    expect(JSON.stringify(audit.body)).not.toContain(EDDIE_NEW);
    expect((await call('DELETE', `v1/operator/${pending.id}/`, { cookie: ownerCookie })).status).toBe(204);
  });

  it('keeps an owner, ends a removed operator\'s sessions at once, and deletes console keys on sign-out', async () => {
    const me = (await call('GET', 'v1/operator_session/', { cookie: ownerCookie })).body.operator.id as string;
    expect((await call('PATCH', `v1/operator/${me}/`, { cookie: ownerCookie, body: { role: 'editor' } })).status).toBe(409);
    expect((await call('DELETE', `v1/operator/${me}/`, { cookie: ownerCookie })).status).toBe(409);

    const key = await call('POST', 'v1/staging/console_api_key/', { cookie: viewerCookie });
    expect(key.status).toBe(201);
    const liveKeys = async (): Promise<string[]> => (await call('GET', 'v1/staging/ws_api_key/?limit=100', { token: t.token })).body.results.map((k: { id: string }) => k.id);
    expect(await liveKeys()).toContain(key.body.id);
    expect((await call('POST', 'v1/staging/console_api_key/', { token: t.token })).status).toBe(403);

    expect((await call('DELETE', `v1/operator/${viewerId}/`, { cookie: ownerCookie })).status).toBe(204);
    expect((await call('GET', 'v1/workspace/', { cookie: viewerCookie })).status).toBe(401);
    expect(await liveKeys()).not.toContain(key.body.id);

    const editorKey = await call('POST', 'v1/staging/console_api_key/', { cookie: editorCookie });
    const signedOut = await call('DELETE', 'v1/operator_session/', { cookie: editorCookie });
    expect(signedOut.status).toBe(204);
    expect(signedOut.headers.getSetCookie()[0]).toMatch(/^herald_session=; .*Max-Age=0/);
    expect((await call('GET', 'v1/workspace/', { cookie: editorCookie })).status).toBe(401);
    expect(await liveKeys()).not.toContain(editorKey.body.id);
  });

  /** The browser's part of an SSO sign-in: start, the provider, the callback; answers where it lands and the session cookie, if any. */
  async function ssoSignIn(options: { dropStateCookie?: boolean } = {}): Promise<{ location: string; cookie?: string }> {
    const start = await call('GET', 'v1/operator_session/oidc/start/');
    expect(start.status).toBe(302);
    const stateCookie = cookieOf(start, 'herald_oidc');
    const authorize = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const callback = await fetch(authorize.headers.get('location')!, { redirect: 'manual', headers: options.dropStateCookie ? {} : { cookie: stateCookie } });
    expect(callback.status).toBe(302);
    const session = callback.headers.getSetCookie().find((value) => value.startsWith('herald_session='));
    return { location: callback.headers.get('location')!, cookie: session?.split(';')[0] };
  }

  it('signs an invited operator in through the identity provider (PKCE, a verified id_token), and refuses forged, replayed or unknown identities', async () => {
    await invite(ownerCookie, 'sso-person@example.com', 'viewer');
    idp.user = { email: 'SSO-Person@example.com', name: 'Sso Person' };
    const signedIn = await ssoSignIn();
    expect(signedIn.location).toBe('/console/');
    const session = await call('GET', 'v1/operator_session/', { cookie: signedIn.cookie });
    expect(session.body.operator).toMatchObject({ email: 'sso-person@example.com', role: 'viewer', status: 'active', has_password: false });
    const tokenRequest = idp.tokenRequests[idp.tokenRequests.length - 1];
    expect(tokenRequest.get('code_verifier')).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const refusals: Array<[Partial<typeof idp.user>, { dropStateCookie?: boolean }, RegExp]> = [
      [{ email: 'stranger@example.com' }, {}, /stranger@example.com is not an operator/],
      [{ email: 'sso-person@example.com', forgeSignature: true }, {}, /signature does not verify/],
      [{ email: 'sso-person@example.com', wrongNonce: true }, {}, /nonce does not match/],
      [{ email: 'sso-person@example.com', email_verified: false }, {}, /has not verified/],
      [{ email: 'sso-person@example.com' }, { dropStateCookie: true }, /started no sign-in/],
    ];
    for (const [user, options, reason] of refusals) {
      idp.user = { email: 'nobody@example.com', ...user };
      const refused = await ssoSignIn(options);
      expect({ user, cookie: refused.cookie }).toEqual({ user, cookie: undefined });
      expect(decodeURIComponent(refused.location.split('sso_error=')[1] ?? '')).toMatch(reason);
    }
  });
});

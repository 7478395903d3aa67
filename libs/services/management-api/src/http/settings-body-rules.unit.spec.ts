import { API_KEY_BODIES } from '../api-keys/request-bodies';
import { PUBLIC_KEY_BODIES } from '../browser-keys/request-bodies';
import { OPERATOR_BODIES } from '../operators/request-bodies';
import { WEBHOOK_ENDPOINT_BODIES } from '../status-webhooks/request-bodies';
import { VENDOR_BODIES } from '../vendors/request-bodies';
import { WORKSPACE_BODIES } from '../workspaces/request-bodies';
import { WORKSPACE_KEY_BODIES } from '../workspace-keys/request-bodies';

/** The settings bodies refuse what their class-validator DTOs refused, at the same paths. */
describe('settings bodies', () => {
  it("reports a bad item at its list's path, as the DTOs' `each` rules did", () => {
    expect(PUBLIC_KEY_BODIES.create.errors({ name: 'web', allowed_domains: ['https://ok.example.com', 'example.com'] })).toEqual([
      { path: 'allowed_domains', message: '[1] must be an origin such as https://app.example.com (scheme, host and optional port; no path)' },
    ]);
    expect(WORKSPACE_KEY_BODIES.create.errors({ name: 'k', allowed_domains: ['ok.com', 7] })).toEqual([{ path: 'allowed_domains', message: 'each must be a string of 1 to 253 characters' }]);
    expect(WEBHOOK_ENDPOINT_BODIES.create.errors({ url: 'ftp://x', event_types: ['opened'], channels: ['fax'], workflows: [''] }).map((error) => error.path)).toEqual([
      'url',
      'event_types',
      'workflows',
      'channels',
    ]);
    expect(WEBHOOK_ENDPOINT_BODIES.patch.errors({ event_types: [] })).toEqual([{ path: 'event_types', message: 'must hold at least 1 status' }]);
  });

  it('accepts what the DTOs accepted: null for an optional field, an ISO 8601 week date, an http URL without a TLD', () => {
    expect(WORKSPACE_BODIES.create.errors({ name: 'Staging', slug: null, description: null, mode: null })).toEqual([]);
    expect(API_KEY_BODIES.create.errors({ name: 'k', expires_at: '2030-W05', read_only: true })).toEqual([]);
    expect(WEBHOOK_ENDPOINT_BODIES.create.errors({ url: 'http://receiver:8080/hook', event_types: ['delivered'], workflows: null })).toEqual([]);
    expect(PUBLIC_KEY_BODIES.patch.errors({ allowed_domains: null })).toEqual([]);
    expect(VENDOR_BODIES.put.errors({ base_url: 'http://mock_vendor:4010', priority: null, credentials: { api_key: 'SG.x' } })).toEqual([]);
  });

  it("refuses what the DTOs refused, in the DTOs' wording where the specs read it", () => {
    expect(PUBLIC_KEY_BODIES.patch.errors({ is_secure_mode_enabled: false })).toEqual([
      { path: 'is_secure_mode_enabled', message: 'can only be true: the browser inbox always requires a user token signed with the workspace signing key' },
    ]);
    expect(API_KEY_BODIES.create.errors({ name: 'k', expires_at: 'tomorrow', read_only: 'yes' }).map((error) => error.path)).toEqual(['expires_at', 'read_only']);
    expect(OPERATOR_BODIES.invite.errors({ email: 'not-an-address', role: 'admin' })).toEqual([
      { path: 'email', message: 'must be an email address' },
      { path: 'role', message: 'must be one of owner, editor, viewer' },
    ]);
    expect(VENDOR_BODIES.test.errors({ to: '', cc: 'x' })).toEqual([
      { path: 'cc', message: 'is not a field of a vendor test (to)' },
      { path: 'to', message: 'must be 1 to 320 characters' },
    ]);
    expect(VENDOR_BODIES.test.errors({ to: ['ada@example.com'] })).toEqual([{ path: 'to', message: 'is required: an address, token or distinct_id, or an identity object' }]);
    expect(VENDOR_BODIES.test.errors({ to: { url: 'x'.repeat(5000) } })).toEqual([{ path: 'to', message: 'must be at most 4096 characters of JSON' }]);
    expect(VENDOR_BODIES.put.errors({ credentials: ['SG.x'] })).toEqual([{ path: 'credentials', message: 'must be an object' }]);
  });
});

import { HeraldError } from '@herald/contracts';
import { feedEventOfBulk, feedEventOfItem, feedSocketRefusal, readFeedSocketCredential } from './feed-socket-events';

const owner = { workspace_id: 'w', distinct_id: 'alice' };

describe("the web SDK feed socket's events and handshake", () => {
  it('names each fan-out change as the SDK hears it', () => {
    expect(feedEventOfItem('item', { id: 'n1' })).toEqual({ name: 'new_notification', payload: { n_id: 'n1' } });
    expect(feedEventOfItem('update', { id: 'n1' })).toEqual({ name: 'notification_update', payload: { n_id: 'n1' } });
    expect(feedEventOfItem('ping', { id: 'n1' })).toBeUndefined();
    expect(feedEventOfBulk({ ...owner, change: 'all_read' })).toEqual({ name: 'bulk_notification_update', payload: { action: 'read', notification_ids: 'all' } });
    expect(feedEventOfBulk({ ...owner, change: 'seen', notification_ids: ['n1', 'n2'] })).toEqual({
      name: 'bulk_notification_update',
      payload: { action: 'seen', notification_ids: ['n1', 'n2'] },
    });
    expect(feedEventOfBulk({ ...owner, change: 'badge_reset' })).toEqual({ name: 'reset_badge', payload: {} });
  });

  it("reads the SDK's connect payload, naming each bad field", () => {
    expect(readFeedSocketCredential({ authorization: 'SS.PUBK.k', 'x-ss-signature': 't', distinct_id: 'alice', tenant_id: 'default', schema: '1' })).toEqual({
      publicKey: 'SS.PUBK.k',
      token: 't',
      distinctId: 'alice',
      tenantId: 'default',
    });
    expect(readFeedSocketCredential({ authorization: 'SS.PUBK.k', distinct_id: 'alice' })).toEqual({ publicKey: 'SS.PUBK.k', token: undefined, distinctId: 'alice', tenantId: undefined });
    const refused = (auth: unknown): string[] => {
      try {
        readFeedSocketCredential(auth);
      } catch (error) {
        return (error as HeraldError).fieldErrors.map((field) => field.path);
      }
      return [];
    };
    expect(refused(undefined)).toEqual(['auth.authorization', 'auth.distinct_id']);
    expect(refused({ authorization: 'SS.PUBK.k', 'x-ss-signature': 'x'.repeat(5000), distinct_id: '', tenant_id: 3 })).toEqual(['auth.x-ss-signature', 'auth.distinct_id', 'auth.tenant_id']);
  });

  it('refuses a token in the words on which the SDK refreshes it, and anything else by name', () => {
    expect(feedSocketRefusal(new HeraldError('authentication_failed', 'token expired')).message).toBe('Authentication Error: wrong auth token');
    expect(feedSocketRefusal(new HeraldError('authentication_failed', 'a user token is required in x-ss-signature')).message).toBe('Authentication Error: wrong auth token');
    expect(feedSocketRefusal(new HeraldError('authentication_failed', 'invalid public key'))).toEqual({
      message: 'Authentication Error: invalid public key',
      data: { error_code: 'authentication_failed', detail: 'invalid public key' },
    });
    expect(feedSocketRefusal(new HeraldError('permission_denied', 'origin x is not allowed')).message).toBe('Authentication Error: origin x is not allowed');
    expect(feedSocketRefusal(HeraldError.validation([{ path: 'auth.distinct_id', message: 'is required' }])).message).toBe('Bad Request: auth.distinct_id is required');
    expect(feedSocketRefusal(new HeraldError('rate_limited', 'too many')).message).toBe('Too Many Requests: too many');
    // An unexpected failure says nothing of itself.
    expect(feedSocketRefusal(new Error('connection reset to 10.0.0.5'))).toEqual({
      message: 'Server Error: the connection could not be checked, try again later',
      data: { error_code: 'internal_error', detail: 'internal error' },
    });
  });
});

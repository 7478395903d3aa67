import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { EngagementLinks, PREFERENCE_LINK_LIFETIME_DAYS } from './engagement-links';

describe('EngagementLinks', () => {
  const key = randomBytes(32);
  const links = new EngagementLinks(key, 'https://notify.example.com');
  const deliveryId = '5c0e1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b:delivery:0.1:email';
  const now = new Date('2026-12-06T10:00:00Z');
  const scope = { workspaceId: 'a0c0ffee-0000-4000-8000-000000000001', workspaceSlug: 'staging', distinctId: 'ada@example.com', category: 'promotional', tenantId: 'acme' };

  it('signs the open pixel and each link of a delivery, and reads back only what it signed', () => {
    const open = links.openUrl(deliveryId);
    const click = links.clickUrl(deliveryId, 3);
    expect(open.startsWith('https://notify.example.com/v1/engagement/open/')).toBe(true);
    expect(click.startsWith('https://notify.example.com/v1/engagement/click/')).toBe(true);
    const tokenOf = (url: string): string => url.slice(url.lastIndexOf('/') + 1);
    expect(links.readTrackingToken(tokenOf(open))).toEqual({ kind: 'open', deliveryId });
    expect(links.readTrackingToken(tokenOf(click))).toEqual({ kind: 'click', deliveryId, linkIndex: 3 });
    // Only URL-safe characters, and nothing of the recipient: the token holds the delivery id and the index.
    expect(tokenOf(click)).toMatch(/^[A-Za-z0-9_.-]+$/);
  });

  it('refuses a token whose index, delivery or signature was changed, or that another key signed', () => {
    const token = links.trackingToken({ kind: 'click', deliveryId, linkIndex: 1 });
    const [head, delivery, mac] = token.split('.');
    expect(links.readTrackingToken(`c2.${delivery}.${mac}`)).toBeUndefined();
    expect(links.readTrackingToken(`o.${delivery}.${mac}`)).toBeUndefined();
    expect(links.readTrackingToken(`${head}.${Buffer.from(`${deliveryId}x`).toString('base64url')}.${mac}`)).toBeUndefined();
    expect(links.readTrackingToken(`${head}.${delivery}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`)).toBeUndefined();
    // The last character carries 2 bits and 4 spare ones: another spelling of the same MAC is refused too.
    const last = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.indexOf(mac[21]);
    expect(links.readTrackingToken(`${head}.${delivery}.${mac.slice(0, 21)}${'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'[last ^ 1]}`)).toBeUndefined();
    expect(new EngagementLinks(randomBytes(32), 'https://x').readTrackingToken(token)).toBeUndefined();
    for (const junk of ['', 'o', 'o..', `c01.${delivery}.${mac}`, `c10000.${delivery}.${mac}`, `${token}.`, `${token}%00`]) expect(links.readTrackingToken(junk)).toBeUndefined();
    expect(() => links.trackingToken({ kind: 'click', deliveryId, linkIndex: -1 })).toThrow('link index');
  });

  it('seals a preference link: one user of one workspace, unreadable in the URL, until it expires', () => {
    const url = links.unsubscribeUrl(scope, now);
    const token = url.slice(url.lastIndexOf('/') + 1);
    expect(url.startsWith('https://notify.example.com/v1/unsubscribe/')).toBe(true);
    expect(Buffer.from(token, 'base64url').toString('latin1')).not.toContain('ada@example.com');
    const read = links.readPreferenceToken(token, now);
    expect(read).toEqual({ ok: true, scope, expiresAt: new Date(now.getTime() + PREFERENCE_LINK_LIFETIME_DAYS * 86_400_000) });
    const later = new Date(now.getTime() + PREFERENCE_LINK_LIFETIME_DAYS * 86_400_000);
    expect(links.readPreferenceToken(token, later)).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses a preference link that was altered or sealed with another key', () => {
    const token = links.preferenceToken(scope, now);
    const bytes = Buffer.from(token, 'base64url');
    bytes[bytes.length - 1] ^= 1;
    expect(links.readPreferenceToken(bytes.toString('base64url'), now)).toEqual({ ok: false, reason: 'forged' });
    expect(new EngagementLinks(randomBytes(32), '').readPreferenceToken(token, now)).toEqual({ ok: false, reason: 'forged' });
    expect(links.readPreferenceToken('not a token', now)).toEqual({ ok: false, reason: 'forged' });
    // A tracking token is no preference link, and the other way round: the keys differ.
    expect(links.readPreferenceToken(links.trackingToken({ kind: 'open', deliveryId }).replace(/\./g, ''), now)).toEqual({ ok: false, reason: 'forged' });
    expect(links.readTrackingToken(token)).toBeUndefined();
  });
});

describe('EngagementLinks MAC', () => {
  it('is HMAC-SHA256 (RFC 2104) of the payload under the derived key, truncated to 16 bytes', () => {
    const key = randomBytes(32);
    const links = new EngagementLinks(key, 'https://x');
    const derived = Buffer.from(hkdfSync('sha256', key, Buffer.from('herald'), Buffer.from('herald engagement tracking v1'), 32));
    const token = links.trackingToken({ kind: 'click', deliveryId: 'd-1', linkIndex: 7 });
    const [head, delivery, mac] = token.split('.');
    expect(mac).toBe(createHmac('sha256', derived).update(`${head}.${delivery}`).digest().subarray(0, 16).toString('base64url'));
    // Signing another delivery in between changes nothing of either.
    expect(links.trackingToken({ kind: 'open', deliveryId: 'd-2' })).not.toContain(delivery);
    expect(links.trackingToken({ kind: 'click', deliveryId: 'd-1', linkIndex: 7 })).toBe(token);
  });
});

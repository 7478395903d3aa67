import { Hash, createHash, hkdfSync, timingSafeEqual } from 'node:crypto';
import { SecretBox } from './secret-box';

/** What an open pixel or a tracked link names: the delivery, and for a click the link's position in the message. */
export type TrackingToken = { readonly kind: 'open'; readonly deliveryId: string } | { readonly kind: 'click'; readonly deliveryId: string; readonly linkIndex: number };

/** Whose preferences a List-Unsubscribe link (and the hosted page it opens) may read and change: one user of one workspace. */
export interface PreferenceLinkScope {
  readonly workspaceId: string;
  readonly workspaceSlug: string;
  readonly distinctId: string;
  /** The category the email was sent in: the one a one-click POST opts out of. */
  readonly category: string;
  /** The trigger's tenant: the scope the choice is written in. */
  readonly tenantId?: string;
}

export type PreferenceLinkRead = { readonly ok: true; readonly scope: PreferenceLinkScope; readonly expiresAt: Date } | { readonly ok: false; readonly reason: 'forged' | 'expired' };

/** How long a List-Unsubscribe link works: mail clients offer it on old messages, but not for ever. */
export const PREFERENCE_LINK_LIFETIME_DAYS = 60;

/** The public routes the links point at (channel-dispatchers and preference-service serve them). */
export const ENGAGEMENT_PATHS = { open: 'v1/engagement/open', click: 'v1/engagement/click', unsubscribe: 'v1/unsubscribe' } as const;

/** Bytes of the tracking MAC kept in the URL: 128 bits, far beyond guessing, half the length of the full digest. */
const MAC_BYTES = 16;
const MAX_LINK_INDEX = 9_999;
const PREFERENCE_LINK_AD = 'herald:preference-link:v1';

/**
 * The signed links of an email: its open pixel, its tracked links and its List-Unsubscribe
 * link, each under a key of its own derived (HKDF-SHA256) from HERALD_SECRETS_KEY, so the
 * services that mint and read them share nothing but that key.
 *
 * A tracking token carries the delivery id and the link's index, HMAC-signed: no address,
 * no URL, nothing about the recipient, and it never expires (a link clicked a year later
 * still goes where the email said). A preference link names a user and a workspace, so it
 * is sealed (AES-256-GCM, which also authenticates it): nothing in it can be read or
 * changed, and it expires after PREFERENCE_LINK_LIFETIME_DAYS.
 */
export class EngagementLinks {
  /** HMAC-SHA256's inner and outer hashes with the key absorbed, copied per token (RFC 2104): a new Hmac per token sets its key up every time. */
  private readonly innerHash: Hash;
  private readonly outerHash: Hash;
  private readonly preferenceBox: SecretBox;
  /** The last delivery id encoded: an email signs its pixel and every link for the same delivery. */
  private lastDelivery = { id: '', encoded: '' };

  constructor(
    secretsKey: Buffer,
    /** `{base_url}` as the recipient reaches it, without a trailing slash. */
    readonly publicUrl: string,
  ) {
    const trackingKey = derive(secretsKey, 'herald engagement tracking v1');
    const block = Buffer.alloc(64);
    trackingKey.copy(block);
    this.innerHash = createHash('sha256').update(block.map((byte) => byte ^ 0x36));
    this.outerHash = createHash('sha256').update(block.map((byte) => byte ^ 0x5c));
    this.preferenceBox = new SecretBox(derive(secretsKey, 'herald preference links v1'));
  }

  openUrl(deliveryId: string): string {
    return `${this.publicUrl}/${ENGAGEMENT_PATHS.open}/${this.trackingToken({ kind: 'open', deliveryId })}`;
  }

  clickUrl(deliveryId: string, linkIndex: number): string {
    return `${this.publicUrl}/${ENGAGEMENT_PATHS.click}/${this.trackingToken({ kind: 'click', deliveryId, linkIndex })}`;
  }

  unsubscribeUrl(scope: PreferenceLinkScope, now: Date): string {
    return `${this.publicUrl}/${ENGAGEMENT_PATHS.unsubscribe}/${this.preferenceToken(scope, now)}`;
  }

  /** `o.<delivery>.<mac>` or `c<index>.<delivery>.<mac>`, the delivery id in base64url. */
  trackingToken(token: TrackingToken): string {
    if (token.kind === 'click' && !(Number.isInteger(token.linkIndex) && token.linkIndex >= 0 && token.linkIndex <= MAX_LINK_INDEX)) {
      throw new Error(`link index must be an integer from 0 to ${MAX_LINK_INDEX}`);
    }
    if (this.lastDelivery.id !== token.deliveryId) this.lastDelivery = { id: token.deliveryId, encoded: Buffer.from(token.deliveryId, 'utf8').toString('base64url') };
    const payload = `${token.kind === 'open' ? 'o' : `c${token.linkIndex}`}.${this.lastDelivery.encoded}`;
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** The token's delivery and link, or undefined when it is malformed or not signed with this key. */
  readTrackingToken(token: string): TrackingToken | undefined {
    const match = /^(o|c(0|[1-9]\d{0,3}))\.([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{22})$/.exec(token);
    if (!match) return undefined;
    const payload = `${match[1]}.${match[3]}`;
    const given = Buffer.from(match[4], 'base64url');
    // Canonical only: the last character's spare bits would otherwise give one MAC several spellings.
    if (given.length !== MAC_BYTES || given.toString('base64url') !== match[4] || !timingSafeEqual(given, this.mac(payload))) return undefined;
    const deliveryId = Buffer.from(match[3], 'base64url').toString('utf8');
    return match[1] === 'o' ? { kind: 'open', deliveryId } : { kind: 'click', deliveryId, linkIndex: Number(match[2]) };
  }

  /** The sealed scope and its expiry, in base64url. */
  preferenceToken(scope: PreferenceLinkScope, now: Date): string {
    const expires = Math.floor(now.getTime() / 1000) + PREFERENCE_LINK_LIFETIME_DAYS * 86_400;
    const body = { w: scope.workspaceId, s: scope.workspaceSlug, u: scope.distinctId, c: scope.category, ...(scope.tenantId === undefined ? {} : { t: scope.tenantId }), e: expires };
    return this.preferenceBox.seal(JSON.stringify(body), PREFERENCE_LINK_AD).toString('base64url');
  }

  readPreferenceToken(token: string, now: Date): PreferenceLinkRead {
    if (!/^[A-Za-z0-9_-]{40,2000}$/.test(token)) return { ok: false, reason: 'forged' };
    let body: unknown;
    try {
      body = JSON.parse(this.preferenceBox.open(Buffer.from(token, 'base64url'), PREFERENCE_LINK_AD));
    } catch {
      return { ok: false, reason: 'forged' };
    }
    const { w, s, u, c, t, e } = (body ?? {}) as Record<string, unknown>;
    if (typeof w !== 'string' || typeof s !== 'string' || typeof u !== 'string' || typeof c !== 'string' || (t !== undefined && typeof t !== 'string') || typeof e !== 'number') {
      return { ok: false, reason: 'forged' };
    }
    const expiresAt = new Date(e * 1000);
    if (expiresAt.getTime() <= now.getTime()) return { ok: false, reason: 'expired' };
    return { ok: true, scope: { workspaceId: w, workspaceSlug: s, distinctId: u, category: c, ...(t === undefined ? {} : { tenantId: t }) }, expiresAt };
  }

  private mac(payload: string): Buffer {
    const inner = this.innerHash.copy().update(payload, 'utf8').digest();
    return this.outerHash.copy().update(inner).digest().subarray(0, MAC_BYTES);
  }
}

function derive(secretsKey: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secretsKey, Buffer.from('herald', 'utf8'), Buffer.from(info, 'utf8'), 32));
}

import { Channel } from '@herald/contracts';
import { RenderedContent } from '@herald/rendering';

export type CredentialValue = string | number | boolean;

/** A vendor as a workspace configured it (management-api's announcement), credentials opened. */
export interface VendorConfig {
  readonly id: string;
  readonly channel: Channel;
  readonly vendor: string;
  readonly priority: number;
  /** The vendor API to call: the configured one or the catalogue's default (null where there is none, e.g. SMTP). */
  readonly baseUrl: string | null;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly credentials: Readonly<Record<string, CredentialValue>>;
  readonly version: number;
}

export interface SendRequest<C extends RenderedContent = RenderedContent> {
  readonly deliveryId: string;
  readonly workspaceId: string;
  /** The recipient's distinct_id (the inbox stores by it). */
  readonly recipientId?: string;
  /** The trigger's tenant, when it named one (the inbox scopes a user token's feed by it). */
  readonly tenantId?: string;
  readonly content: C;
  /** One destination identity of the command: an address, a token, a chat identity. */
  readonly identity: unknown;
  readonly config: VendorConfig;
  /** Stable per delivery and identity: sent to vendors that dedupe by it. */
  readonly idempotencyKey: string;
}

export type SendResult =
  /** `answer`: the vendor's own reply where the adapter has one besides its id (SMTP's final reply), shown by vendor tests. */
  | { readonly ok: true; readonly vendorMessageId?: string; readonly answer?: string }
  | { readonly ok: false; readonly retryable: boolean; readonly reason: string };

/**
 * One vendor of one channel. `send` never throws for a vendor's answer or a network
 * failure: it says whether retrying could help. It never puts credentials in a reason.
 */
export interface ChannelVendor {
  readonly channel: Channel;
  readonly vendor: string;
  /**
   * True when the vendor dedupes repeated sends by `idempotencyKey` (or Herald stores
   * the message itself): then a send whose outcome was lost in a crash may be repeated.
   */
  readonly dedupesByKey: boolean;
  send(request: SendRequest): Promise<SendResult>;
}

export const sent = (vendorMessageId?: string, answer?: string): SendResult => (answer === undefined ? { ok: true, vendorMessageId } : { ok: true, vendorMessageId, answer });
export const retryable = (reason: string): SendResult => ({ ok: false, retryable: true, reason });
export const permanent = (reason: string): SendResult => ({ ok: false, retryable: false, reason });

/** The content a vendor of `channel` can send, or a permanent failure when the command was for another channel. */
export function contentOf<K extends RenderedContent['channel']>(request: SendRequest, ...channels: K[]): Extract<RenderedContent, { channel: K }> {
  if (!(channels as string[]).includes(request.content.channel)) throw new Error(`content for ${request.content.channel} given to a ${channels.join('/')} vendor`);
  return request.content as Extract<RenderedContent, { channel: K }>;
}

/** A string credential or setting, or an error naming the field (never its value). */
export function stringField(source: Readonly<Record<string, unknown>>, name: string): string {
  const value = source[name];
  if (typeof value !== 'string' || value === '') throw new VendorConfigError(`${name} is not configured`);
  return value;
}

/** The vendor is configured in a way that cannot work; a permanent failure for this vendor. */
export class VendorConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VendorConfigError';
  }
}

/** The base URL without a trailing slash, or an error when the vendor has none configured. */
export function baseUrlOf(config: VendorConfig): string {
  if (!config.baseUrl) throw new VendorConfigError('base_url is not configured');
  return config.baseUrl.replace(/\/+$/, '');
}

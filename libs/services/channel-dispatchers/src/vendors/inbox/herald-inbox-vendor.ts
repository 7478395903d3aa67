import { deterministicUuid } from '@herald/contracts';
import { InboxWrites } from '../../inbox/inbox-writes';
import { ChannelVendor, SendRequest, SendResult, contentOf, permanent, sent } from '../vendor.port';

/**
 * The inbox is Herald's own: "sending" stores the message for the recipient's
 * distinct_id. Its id derives from the delivery, so storing twice stores once: this is
 * the vendor that dedupes by key.
 */
export class HeraldInboxVendor implements ChannelVendor {
  readonly channel = 'inbox' as const;
  readonly vendor = 'herald_inbox';
  readonly dedupesByKey = true;

  constructor(private readonly store: InboxWrites) {}

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'inbox');
    if (!request.recipientId) return permanent('the inbox needs a recipient with a distinct_id');
    const id = deterministicUuid('inbox', request.idempotencyKey);
    await this.store.store(id, request.workspaceId, request.recipientId, request.deliveryId, content, request.tenantId);
    return sent(id);
  }
}

/** The inbox works without configuration: this stands in when a workspace configured no inbox vendor. */
export const BUILT_IN_INBOX = {
  id: '00000000-0000-0000-0000-000000000000',
  channel: 'inbox',
  vendor: 'herald_inbox',
  priority: 1,
  baseUrl: null,
  settings: {},
  credentials: {},
  version: 1,
} as const;

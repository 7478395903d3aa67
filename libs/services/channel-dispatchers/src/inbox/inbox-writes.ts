import { Injectable } from '@nestjs/common';
import { InboxContent } from '@herald/rendering';
import { WriteBatcher } from '../dispatch/write-batcher';
import { InboxRepository, NewInboxMessage } from './inbox.repository';

interface StoreFailure {
  readonly error: unknown;
}

/**
 * The inbox vendor's stores, coalesced: stores that arrive while one is being written go
 * together into the next (`InboxRepository.store`, one transaction for all). The inbox is
 * the one vendor every delivery of its channel writes to, and one transaction per message
 * cost more than the rest of the dispatcher's writes of that delivery, which are batched
 * already. No SQL of its own.
 */
@Injectable()
export class InboxWrites {
  /** Resolves with each message's own failure, if any (see storeBatch). */
  private readonly stores = new WriteBatcher<NewInboxMessage, StoreFailure | undefined>((messages) => this.storeBatch(messages));

  constructor(private readonly inbox: InboxRepository) {}

  /** Stores one inbox message; a new one is announced on notify.inbox.updated.v1 (for open event streams) in the same transaction. */
  async store(id: string, workspaceId: string, distinctId: string, deliveryId: string, content: InboxContent, tenantId?: string): Promise<void> {
    const failure = await this.stores.run({ id, workspaceId, distinctId, deliveryId, content, tenantId });
    if (failure) throw failure.error;
  }

  /**
   * A batch of stores: one transaction for all. A batch that fails is written again one
   * message at a time, so a message that can never be stored (a NUL in its text) fails its
   * own delivery only.
   */
  private async storeBatch(messages: readonly NewInboxMessage[]): Promise<Array<StoreFailure | undefined>> {
    try {
      await this.inbox.store(messages);
      return messages.map(() => undefined);
    } catch (error) {
      if (messages.length === 1) return [{ error }];
      const results = await Promise.allSettled(messages.map((message) => this.inbox.store([message])));
      return results.map((result) => (result.status === 'rejected' ? { error: result.reason as unknown } : undefined));
    }
  }
}

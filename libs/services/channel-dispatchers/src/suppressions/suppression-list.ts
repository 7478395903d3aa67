import { Injectable } from '@nestjs/common';
import { Channel, SuppressionChanged } from '@herald/contracts';
import { SuppressedAddress, SuppressionRepository } from './suppression.repository';

/** Why an address is on the list, as a skipped send reports it. */
export interface Suppression {
  readonly reason: string;
  readonly detail: string | null;
}

const CACHE_TTL_MS = 5_000;
/** A workspace channel's list is cached whole up to this size; a longer one is asked per attempt. */
const CACHED_LIST_MAX = 10_000;

type ChannelList = { readonly kind: 'whole'; readonly entries: ReadonlyMap<string, Suppression> } | { readonly kind: 'too_long' };

const suppressionOf = (entry: SuppressedAddress): Suppression => ({ reason: entry.reason, detail: entry.detail });

/**
 * The addresses each workspace's sends skip, kept in `dispatch.suppressions` (the
 * repository) from `notify.suppression.changed.v1` (the API's changes through
 * management-api, and this service's own bounces and complaints, which it also writes
 * at once: see VendorCallbackRepository). Applied in topic order, as management-api applies
 * it, so both end at the topic's last word on an address. Read on every attempt of a
 * channel with addresses, so a channel's list is cached whole for 5 s, and an empty list
 * costs nothing. Every replica also reads every change itself (a group of its own, from
 * the latest offset) and drops its cached list at once, so an address an operator took
 * off the list is sent to on the next attempt, whichever replica makes it (both
 * consumers: SuppressionChangesController).
 */
@Injectable()
export class SuppressionList {
  private readonly cache = new Map<string, { list: Promise<ChannelList>; expiresAt: number }>();

  constructor(private readonly entries: SuppressionRepository) {}

  /** The addresses among `addresses` on the workspace's list for the channel, with why. */
  async suppressedAmong(workspaceId: string, channel: Channel, addresses: readonly string[]): Promise<Map<string, Suppression>> {
    const found = new Map<string, Suppression>();
    if (addresses.length === 0) return found;
    const list = await this.listOf(workspaceId, channel);
    if (list.kind === 'whole') {
      for (const address of addresses) {
        const entry = list.entries.get(address);
        if (entry) found.set(address, entry);
      }
      return found;
    }
    for (const entry of await this.entries.among(workspaceId, channel, addresses)) found.set(entry.address, suppressionOf(entry));
    return found;
  }

  /** A change written elsewhere (a callback's own transaction, now committed): the cached list is dropped. */
  forget(change: Pick<SuppressionChanged, 'workspace_id' | 'channel'>): void {
    this.cache.delete(`${change.workspace_id}/${change.channel}`);
  }

  /** A change read from the topic (SuppressionChangesController): stored, then the cached list dropped. */
  async apply(change: SuppressionChanged): Promise<void> {
    await this.entries.apply(change);
    this.forget(change);
  }

  private listOf(workspaceId: string, channel: Channel): Promise<ChannelList> {
    const key = `${workspaceId}/${channel}`;
    const cached = this.cache.get(key);
    if (cached && cached.expiresAt > Date.now()) return cached.list;
    const entry = { list: this.readList(workspaceId, channel), expiresAt: Date.now() + CACHE_TTL_MS };
    this.cache.set(key, entry);
    void entry.list.catch(() => {
      if (this.cache.get(key) === entry) this.cache.delete(key);
    });
    return entry.list;
  }

  private async readList(workspaceId: string, channel: Channel): Promise<ChannelList> {
    const rows = await this.entries.listOf(workspaceId, channel, CACHED_LIST_MAX + 1);
    if (rows.length > CACHED_LIST_MAX) return { kind: 'too_long' };
    return { kind: 'whole', entries: new Map(rows.map((row) => [row.address, suppressionOf(row)])) };
  }
}

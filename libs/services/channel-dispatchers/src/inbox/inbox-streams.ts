import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import {
  INBOX_BULK_UPDATED_TYPE,
  INBOX_UPDATED_TYPE,
  InboxBulkUpdated,
  InboxUpdated,
  parseEnvelope,
  parseInboxBulkUpdated,
  parseInboxUpdated,
  readsSchemaVersion,
  userKey,
} from '@herald/contracts';
import { IncomingMessage } from '@herald/bus';
import { HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { DEFAULT_TENANT, InboxOwner } from './inbox-owner';

/** Where a stream's events go: the HTTP response of one open event stream, or one web SDK socket. */
export interface StreamSink {
  /** `item` (a new message), `update` (a message's new state) or `ping`. */
  send(event: string, data: unknown): void;
  end(): void;
  /**
   * A sink that shows bulk changes whole (the web SDK's socket) takes them here (all read,
   * bulk seen, badge reset), and not the `update` of each message they changed. Without
   * it, a sink gets those updates one by one, as the event stream always has.
   */
  bulk?(update: InboxBulkUpdated): void;
}

export interface StreamLimits {
  /** Open streams of one recipient on this replica (tabs of one user). */
  readonly perSubscriber: number;
  /** Open streams of one public key (or API key) on this replica: one leaked key cannot hold every socket. */
  readonly perKey: number;
  /** Open streams on this replica, event streams and sockets together. */
  readonly total: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = { perSubscriber: 5, perKey: 1_000, total: 10_000 };
export const INBOX_STREAM_LIMITS = Symbol('INBOX_STREAM_LIMITS');

const HEARTBEAT_MS = 25_000;

interface OpenStream {
  readonly subscriber: string;
  readonly limitKey: string;
  readonly sink: StreamSink;
  /** Set when the user token named a tenant: only that tenant's messages are sent. */
  readonly tenantId?: string;
}

/**
 * The inbox event streams this replica holds, fed by every update of
 * notify.inbox.updated.v1 (InboxUpdatesController). A missed event is not retried: a
 * page that reconnects lists its inbox again.
 */
@Injectable()
export class InboxStreams implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly bySubscriber = new Map<string, Set<OpenStream>>();
  private readonly perKey = new Map<string, number>();
  private total = 0;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    @Inject(INBOX_STREAM_LIMITS) private readonly limits: StreamLimits,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.heartbeat = setInterval(() => this.ping(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Whether `open` would take one more stream now (a socket's handshake asks before it is accepted). */
  hasRoom(owner: InboxOwner, limitKey: string): boolean {
    const streams = this.bySubscriber.get(userKey(owner.workspaceId, owner.distinctId));
    return (streams?.size ?? 0) < this.limits.perSubscriber && (this.perKey.get(limitKey) ?? 0) < this.limits.perKey && this.total < this.limits.total;
  }

  /** Registers a stream; `null` when a limit is reached. The returned function unregisters it. */
  open(owner: InboxOwner, limitKey: string, sink: StreamSink): (() => void) | null {
    if (!this.hasRoom(owner, limitKey)) return null;
    const subscriber = userKey(owner.workspaceId, owner.distinctId);
    const streams = this.bySubscriber.get(subscriber) ?? new Set<OpenStream>();
    const keyCount = this.perKey.get(limitKey) ?? 0;
    const stream: OpenStream = { subscriber, limitKey, sink, tenantId: owner.tenantId };
    streams.add(stream);
    this.bySubscriber.set(subscriber, streams);
    this.perKey.set(limitKey, keyCount + 1);
    this.total += 1;
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.total -= 1;
      streams.delete(stream);
      if (streams.size === 0) this.bySubscriber.delete(subscriber);
      const left = (this.perKey.get(limitKey) ?? 1) - 1;
      if (left === 0) this.perKey.delete(limitKey);
      else this.perKey.set(limitKey, left);
    };
  }

  /** Shutdown ends every stream, so closing the HTTP server does not wait for them. */
  onModuleDestroy(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const streams of this.bySubscriber.values()) for (const stream of streams) stream.sink.end();
    this.bySubscriber.clear();
    this.perKey.clear();
    this.total = 0;
  }

  /** An update read from the topic (InboxUpdatesController); only news for open pages: a message that does not parse is skipped, never retried. */
  read(message: IncomingMessage): void {
    // Keyed by recipient as the streams are (`userKey`): most updates concern no page open
    // on this replica, and are passed over without being parsed.
    if (!this.bySubscriber.has(message.key)) return;
    const envelope = parseEnvelope(message.value);
    if (!envelope.ok || !readsSchemaVersion(envelope.value)) return;
    if (envelope.value.type === INBOX_UPDATED_TYPE) {
      const parsed = parseInboxUpdated(envelope.value.payload);
      if (parsed.ok) this.deliver(parsed.value);
    } else if (envelope.value.type === INBOX_BULK_UPDATED_TYPE) {
      const parsed = parseInboxBulkUpdated(envelope.value.payload);
      if (parsed.ok) this.deliverBulk(parsed.value);
    }
  }

  private deliver(update: InboxUpdated): void {
    for (const stream of this.streamsOf(update)) {
      if (stream.tenantId !== undefined && stream.tenantId !== (update.tenant_id ?? DEFAULT_TENANT)) continue;
      if (update.bulk && stream.sink.bulk) continue;
      this.write(() => stream.sink.send(update.change === 'added' ? 'item' : 'update', update.item));
    }
  }

  /** A change made for one tenant is that tenant's pages'; one made for every tenant (no tenant named) is every page's. */
  private deliverBulk(update: InboxBulkUpdated): void {
    for (const stream of this.streamsOf(update)) {
      if (stream.tenantId !== undefined && update.tenant_id !== undefined && stream.tenantId !== update.tenant_id) continue;
      const bulk = stream.sink.bulk?.bind(stream.sink);
      if (bulk) this.write(() => bulk(update));
    }
  }

  private streamsOf(update: { readonly workspace_id: string; readonly distinct_id: string }): ReadonlySet<OpenStream> {
    return this.bySubscriber.get(userKey(update.workspace_id, update.distinct_id)) ?? new Set();
  }

  private write(send: () => void): void {
    try {
      send();
    } catch (error) {
      this.logger.warn('inbox stream write failed', { error: error instanceof Error ? error.message : String(error) });
    }
  }

  private ping(): void {
    for (const streams of this.bySubscriber.values()) for (const stream of streams) stream.sink.send('ping', {});
  }
}

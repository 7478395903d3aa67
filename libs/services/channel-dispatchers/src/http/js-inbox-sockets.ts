import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { Namespace, Socket } from 'socket.io';
import { HeraldError } from '@herald/contracts';
import { HERALD_LOGGER, HeraldLogger, firstHeader } from '@herald/runtime';
import { feedSocketRefusal } from '../inbox/feed-socket-events';
import { InboxOwner } from '../inbox/inbox-owner';
import { InboxStreams, StreamSink } from '../inbox/inbox-streams';
import { jsInboxEventOfBulk, jsInboxEventOfItem, workspaceKeyOf } from '../inbox/js-inbox-protocol';
import { JsInboxAuthenticator } from './js-inbox-auth';

/**
 * `@suprsend/js-inbox` connects `io(socketHost, {transports: ['websocket'], auth})`; with
 * `socketHost` `{base_url}/js-inbox`, socket.io reads the path as this namespace, on the
 * feed's server at `/socket.io/` (FeedSockets).
 */
export const JS_INBOX_NAMESPACE = '/js-inbox';

interface JsInboxSocketData {
  owner?: InboxOwner;
  limitKey?: string;
}

/**
 * The realtime half of `@suprsend/js-inbox`'s protocol. A socket authenticates in its
 * connect payload (`authorization: <workspace_key>:<nonce>`, `distinct_id`,
 * `subscriber_id`, `tenant_id`) exactly as the routes do (JsInboxAuthenticator), and is
 * then a sink of InboxStreams, which hears every replica: `new_notification`,
 * `notification_updated`, `mark_all_read`, `update_badge`. Its connections count against
 * the same limits as the feed's, per user and per workspace key. The subscriber id does
 * not expire, so neither does the connection.
 */
@Injectable()
export class JsInboxSockets {
  private namespace: Namespace | undefined;

  constructor(
    private readonly authenticator: JsInboxAuthenticator,
    private readonly streams: InboxStreams,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  /** Serves the namespace (FeedSockets owns the server and its address reading). */
  attach(namespace: Namespace, clientAddress: (request: IncomingMessage) => string): void {
    namespace.use((socket, next) => {
      this.authenticate(socket, clientAddress(socket.request)).then(
        () => next(),
        (error: unknown) => {
          const refusal = feedSocketRefusal(error);
          if (!(error instanceof HeraldError)) this.logger.error('js-inbox socket: the handshake failed', { error: error instanceof Error ? error.message : String(error) });
          next(Object.assign(new Error(refusal.message), { data: refusal.data }));
        },
      );
    });
    namespace.on('connection', (socket) => this.accept(socket));
    this.namespace = namespace;
  }

  /** Every connection of the namespace closed (shutdown: pages reconnect to another replica). */
  closeAll(): void {
    if (!this.namespace) return;
    for (const socket of this.namespace.sockets.values()) socket.conn.close();
    this.namespace = undefined;
  }

  private async authenticate(socket: Socket, ip: string): Promise<void> {
    const auth = socket.handshake.auth as Record<string, unknown> | undefined;
    const authorization = typeof auth?.authorization === 'string' ? auth.authorization : undefined;
    const request = { ip, method: 'GET', headers: { origin: firstHeader(socket.request.headers.origin) }, routeOptions: { url: JS_INBOX_NAMESPACE } };
    const owner = await this.authenticator.authenticateUser(request, { headers: () => undefined }, authorization, auth, 'auth.');
    const limitKey = `workspace_key:${workspaceKeyOf(authorization) ?? ''}`;
    if (!this.streams.hasRoom(owner, limitKey)) throw new HeraldError('rate_limited', 'too many open inbox connections for this user or key');
    const data = socket.data as JsInboxSocketData;
    data.owner = owner;
    data.limitKey = limitKey;
  }

  private accept(socket: Socket): void {
    const { owner, limitKey } = socket.data as JsInboxSocketData;
    if (owner === undefined || limitKey === undefined) {
      socket.disconnect(true);
      return;
    }
    const sink: StreamSink = {
      send: (streamEvent, item) => {
        const event = jsInboxEventOfItem(streamEvent, item as { id: string; archived_at?: string | null });
        if (event) socket.emit(event.name, event.payload);
      },
      bulk: (update) => {
        const event = jsInboxEventOfBulk(update);
        if (event) socket.emit(event.name, event.payload);
      },
      // Transport close, not a disconnect: the SDK reconnects by itself only after the former.
      end: () => socket.conn.close(),
    };
    const close = this.streams.open(owner, limitKey, sink);
    if (close === null) {
      socket.disconnect(true);
      return;
    }
    socket.once('disconnect', close);
  }
}

import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import { Server, Socket } from 'socket.io';
import { HeraldError } from '@herald/contracts';
import { BrowserAuthenticator, CLOCK, Clock, HERALD_CONFIG, HERALD_LOGGER, HeraldConfig, HeraldLogger, firstHeader } from '@herald/runtime';
import { feedEventOfBulk, feedEventOfItem, feedSocketRefusal, readFeedSocketCredential } from '../inbox/feed-socket-events';
import { InboxOwner } from '../inbox/inbox-owner';
import { InboxStreams, StreamSink } from '../inbox/inbox-streams';
import { feedOwnerOf } from './feed-auth.guard';
import { JS_INBOX_NAMESPACE, JsInboxSockets } from './js-inbox-sockets';

/** The path `@suprsend/web-sdk` connects to: `{socketHost}/socket.io/`. */
export const FEED_SOCKET_PATH = '/socket.io/';
/** The connect payload is a key, a token and two ids; nothing the SDK sends is larger. */
const MAX_SOCKET_MESSAGE_BYTES = 16 * 1024;
/** A connection that has not authenticated by then is closed (socket.io's connectTimeout). */
const UNAUTHENTICATED_TIMEOUT_MS = 10_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

interface FeedSocketData {
  owner?: InboxOwner;
  limitKey?: string;
  expiresAtMs?: number;
}

/**
 * The realtime half of SuprSend's feed API: socket.io v4 on the HTTP server that serves
 * `/v1/feed/`, at `/socket.io/`, WebSocket only (the SDK's `transports: ['websocket']`:
 * no long-polling, so no CORS on this path; a page's Origin is checked against its key).
 *
 * A socket authenticates in its connect payload exactly as the feed's routes do
 * (BrowserAuthenticator and feedOwnerOf: one user of one workspace, in one tenant when it
 * names one). Once connected it is a sink of InboxStreams, which reads every
 * `notify.inbox.updated.v1` on every replica: a message stored or marked on any replica
 * reaches the socket on this one, as `new_notification`, `notification_update`,
 * `bulk_notification_update` or `reset_badge`. The sockets count against the same limits
 * as the event streams (per user, per key, in all).
 *
 * When the token expires the connection is closed (not the socket disconnected): the SDK
 * reconnects, is refused with `Authentication Error: wrong auth token`, refreshes the
 * token through the page's `refreshUserToken` and connects again. Shutdown closes every
 * connection the same way, so pages reconnect to another replica.
 */
@Injectable()
export class FeedSockets implements OnApplicationBootstrap, OnModuleDestroy {
  private io: Server | undefined;
  private readonly clientAddress: (request: IncomingMessage) => string;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly browsers: BrowserAuthenticator,
    private readonly streams: InboxStreams,
    private readonly jsInbox: JsInboxSockets,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_CONFIG) config: HeraldConfig,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {
    // The address the failed-authentication limits count, as Fastify's request.ip reads it (HERALD_TRUST_PROXY).
    const trust = config.trustProxy;
    this.clientAddress =
      trust === false
        ? (request) => request.socket.remoteAddress ?? ''
        : (request) => proxyAddr(request, trust === true ? () => true : proxyAddr.compile([...trust]));
  }

  onApplicationBootstrap(): void {
    const http = this.adapterHost.httpAdapter?.getHttpServer() as HttpServer | undefined;
    // Without an HTTP server (a context of its own) there is nothing to attach to.
    if (!http) return;
    const io = new Server(http, {
      path: FEED_SOCKET_PATH,
      transports: ['websocket'],
      serveClient: false,
      maxHttpBufferSize: MAX_SOCKET_MESSAGE_BYTES,
      connectTimeout: UNAUTHENTICATED_TIMEOUT_MS,
    });
    io.use((socket, next) => {
      this.authenticate(socket).then(
        () => next(),
        (error: unknown) => {
          const refusal = feedSocketRefusal(error);
          if (!(error instanceof HeraldError)) this.logger.error('feed socket: the handshake failed', { error: error instanceof Error ? error.message : String(error) });
          next(Object.assign(new Error(refusal.message), { data: refusal.data }));
        },
      );
    });
    io.on('connection', (socket) => this.accept(socket));
    // `@suprsend/js-inbox`'s realtime shares the server, in a namespace of its own.
    this.jsInbox.attach(io.of(JS_INBOX_NAMESPACE), this.clientAddress);
    this.io = io;
  }

  /** Every connection closed, authenticated or not; the HTTP server is closed by its application. */
  onModuleDestroy(): void {
    if (!this.io) return;
    for (const socket of this.io.sockets.sockets.values()) socket.conn.close();
    this.jsInbox.closeAll();
    this.io.engine.close();
    this.io = undefined;
  }

  /** The handshake: the credential read and checked, the owner and its limit key kept on the socket. */
  private async authenticate(socket: Socket): Promise<void> {
    const credential = readFeedSocketCredential(socket.handshake.auth);
    const handshake = { ip: this.clientAddress(socket.request), origin: firstHeader(socket.request.headers.origin), path: FEED_SOCKET_PATH };
    const caller = await this.browsers.authenticateHandshake(handshake, credential.publicKey, credential.token, credential.distinctId);
    const request = { ip: handshake.ip, method: 'GET', headers: { origin: handshake.origin }, routeOptions: { url: FEED_SOCKET_PATH } };
    const owner = feedOwnerOf(this.browsers, request, caller, credential.distinctId, credential.tenantId);
    const limitKey = `public_key:${caller.publicKeyId}`;
    if (!this.streams.hasRoom(owner, limitKey)) throw new HeraldError('rate_limited', 'too many open feed connections for this user or key');
    const data = socket.data as FeedSocketData;
    data.owner = owner;
    data.limitKey = limitKey;
    data.expiresAtMs = caller.userToken.exp * 1000;
  }

  private accept(socket: Socket): void {
    const { owner, limitKey, expiresAtMs } = socket.data as FeedSocketData;
    if (owner === undefined || limitKey === undefined || expiresAtMs === undefined) {
      socket.disconnect(true);
      return;
    }
    // Transport close, not a disconnect: the SDK reconnects by itself only after the former.
    const closeConnection = (): void => {
      socket.conn.close();
    };
    const sink: StreamSink = {
      send: (streamEvent, item) => {
        const event = feedEventOfItem(streamEvent, item as { id: string });
        if (event) socket.emit(event.name, event.payload);
      },
      bulk: (update) => {
        const event = feedEventOfBulk(update);
        socket.emit(event.name, event.payload);
      },
      end: closeConnection,
    };
    const close = this.streams.open(owner, limitKey, sink);
    if (close === null) {
      // Another socket took the last room since the handshake.
      socket.disconnect(true);
      return;
    }
    const expiry = setTimeout(closeConnection, Math.min(MAX_TIMER_MS, Math.max(0, expiresAtMs - this.clock.now().getTime())));
    socket.once('disconnect', () => {
      clearTimeout(expiry);
      close();
    });
  }
}

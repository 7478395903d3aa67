import type { PGlite } from '@electric-sql/pglite';
import { Server, Socket, createServer } from 'node:net';

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

interface Connection {
  readonly id: number;
  readonly socket: Socket;
  buffer: Buffer;
  started: boolean;
  closed: boolean;
  /** Whether it ever sent a LISTEN: notifications are handed to it (see `forwardNotifications`). */
  listens: boolean;
}

interface Pending {
  readonly connection: Connection;
  readonly message: Buffer;
  /** The startup message (no type byte) is a round of its own. */
  readonly startup: boolean;
}

/**
 * Serves one PGlite database to several wire-protocol connections. PGlite is a
 * single session, so connections take turns; a turn lasts a whole round of the
 * protocol, not one message: from a connection's first message until its Sync or
 * simple Query (and, inside a transaction, until the transaction ends). Other
 * connections' messages wait meanwhile.
 *
 * Why not `@electric-sql/pglite-socket`'s server: it interleaves connections
 * message by message outside transactions, so one client's Parse can replace
 * another's unnamed statement between that one's Parse and Bind ("bind message
 * supplies 2 parameters, but prepared statement "" requires 1"), which concurrent
 * services in the embedded mode hit. The wire handling below is the same idea,
 * with rounds kept whole.
 */
export class PGliteWireServer {
  private server?: Server;
  private readonly connections = new Set<Connection>();
  private readonly queue: Pending[] = [];
  /** The connection whose round (or transaction) is in progress. */
  private owner?: Connection;
  private pumping = false;
  private stopped = false;
  private nextId = 1;
  /** Whether any connection ever sent a LISTEN; until then no output is scanned for notifications. */
  private anyListens = false;

  constructor(private readonly db: PGlite) {}

  async start(host: string, port: number): Promise<{ host: string; port: number }> {
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    const address = server.address() as { address: string; port: number };
    return { host: address.address, port: address.port };
  }

  async stop(): Promise<void> {
    // From here on nothing touches PGlite: the owner closes it right after.
    this.stopped = true;
    this.queue.length = 0;
    for (const connection of this.connections) connection.socket.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    const connection: Connection = { id: this.nextId++, socket, buffer: Buffer.alloc(0), started: false, closed: false, listens: false };
    this.connections.add(connection);
    socket.on('data', (chunk: Buffer) => {
      connection.buffer = connection.buffer.length === 0 ? chunk : Buffer.concat([connection.buffer, chunk]);
      this.split(connection);
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => void this.release(connection));
  }

  /** Cuts complete protocol messages off the connection's buffer and queues them. */
  private split(connection: Connection): void {
    for (;;) {
      const buffer = connection.buffer;
      if (!connection.started) {
        if (buffer.length < 8) return;
        const length = buffer.readInt32BE(0);
        const code = buffer.readInt32BE(4);
        if (code === SSL_REQUEST) {
          connection.buffer = buffer.subarray(8);
          connection.socket.write('N');
          continue;
        }
        if (code === CANCEL_REQUEST) {
          connection.socket.destroy();
          return;
        }
        if (code !== PROTOCOL_3 || length < 8) {
          connection.socket.destroy();
          return;
        }
        if (buffer.length < length) return;
        connection.started = true;
        this.enqueue(connection, buffer.subarray(0, length), true);
        connection.buffer = buffer.subarray(length);
        continue;
      }
      if (buffer.length < 5) return;
      const total = 1 + buffer.readInt32BE(1);
      if (buffer.length < total) return;
      const message = buffer.subarray(0, total);
      connection.buffer = buffer.subarray(total);
      if (message[0] === 0x58 /* X: Terminate */) {
        connection.socket.end();
        return;
      }
      this.enqueue(connection, message, false);
    }
  }

  private enqueue(connection: Connection, message: Buffer, startup: boolean): void {
    if (!startup && !connection.listens && message.includes('LISTEN')) {
      connection.listens = true;
      this.anyListens = true;
    }
    this.queue.push({ connection, message: Buffer.from(message), startup });
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.pumping || this.stopped) return;
    this.pumping = true;
    try {
      for (;;) {
        const index = this.owner ? this.queue.findIndex((p) => p.connection === this.owner) : 0;
        if (index < 0 || this.queue.length === 0) return;
        const [next] = this.queue.splice(index, 1);
        if (next.connection.closed) continue;
        if (this.stopped) return;
        await this.execute(next);
      }
    } finally {
      this.pumping = false;
    }
  }

  private async execute({ connection, message, startup }: Pending): Promise<void> {
    const output: Buffer[] | undefined = this.anyListens ? [] : undefined;
    try {
      await this.db.runExclusive(() =>
        this.db.execProtocolRawStream(new Uint8Array(message), {
          onRawData: (data: Uint8Array) => {
            if (data.length === 0) return;
            const chunk = Buffer.from(data);
            output?.push(chunk);
            if (!connection.closed) connection.socket.write(chunk);
          },
        }),
      );
    } catch {
      // PGlite reported the error to the client in the protocol stream already.
    }
    if (output && output.length > 0) this.forwardNotifications(connection, Buffer.concat(output));
    const endsRound = startup || message[0] === 0x53 /* S: Sync */ || message[0] === 0x51; /* Q: Query */
    this.owner = endsRound && !this.db.isInTransaction() ? undefined : connection;
  }

  /**
   * On a real server each session gets the notifications it listens for. Here every
   * connection shares PGlite's one session, so Postgres sends a notification to
   * whichever connection's round ran the committing statement; it is handed on to the
   * other connections that listen. They are idle (one round runs at a time), so the
   * message lands between their own rounds' messages.
   */
  private forwardNotifications(origin: Connection, output: Buffer): void {
    for (let at = 0; at + 5 <= output.length; ) {
      const end = at + 1 + output.readInt32BE(at + 1);
      if (output[at] === 0x41 /* A: NotificationResponse */ && end <= output.length) {
        const notification = output.subarray(at, end);
        for (const other of this.connections) if (other !== origin && other.listens && !other.closed) other.socket.write(notification);
      }
      at = end;
    }
  }

  /** A connection that goes away mid-round or mid-transaction must not hold the session. */
  private async release(connection: Connection): Promise<void> {
    connection.closed = true;
    this.connections.delete(connection);
    for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i].connection === connection) this.queue.splice(i, 1);
    if (this.owner === connection) {
      // Roll back before anyone else gets the session, or their statements would run
      // inside the dead connection's transaction.
      if (!this.stopped && this.db.isInTransaction()) await this.db.exec('ROLLBACK').catch(() => undefined);
      this.owner = undefined;
    }
    void this.pump();
  }
}

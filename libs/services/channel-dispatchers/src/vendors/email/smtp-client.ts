import { Socket, connect as connectTcp } from 'node:net';
import { hostname } from 'node:os';
import { ConnectionOptions, TLSSocket, connect as connectTls } from 'node:tls';
import {
  NO_CAPABILITIES,
  RecipientRejection,
  ReplyReader,
  SmtpCapabilities,
  SmtpEnvelope,
  SmtpError,
  SmtpReply,
  authMechanismFor,
  capabilitiesOf,
  dataBlock,
  decideEnvelope,
  replyText,
  transactionCommands,
} from './smtp-protocol';

export interface SmtpServerOptions {
  /** The address to connect to (already checked against the outbound rule). */
  readonly address: string;
  readonly port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  readonly secure: boolean;
  /** TLS settings: `servername` (the configured host), and in tests a CA. */
  readonly tls?: ConnectionOptions;
  readonly auth?: { readonly user: string; readonly pass: string };
  /** TCP (and TLS) connect limit. */
  readonly connectionTimeoutMs: number;
  /** How long a reply may take; also how long a pooled connection stays open unused. */
  readonly replyTimeoutMs: number;
}

export interface SmtpPoolOptions extends SmtpServerOptions {
  readonly maxConnections: number;
  /** A connection is closed (QUIT) after this many transactions and a new one opened. */
  readonly maxMessagesPerConnection: number;
}

export interface SmtpSent {
  readonly accepted: readonly string[];
  readonly rejected: readonly RecipientRejection[];
  /** The server's reply to the message's final `.`. */
  readonly response: string;
}

/** The name we greet with: the host's, when it is a domain, else an address literal (as nodemailer does). */
const EHLO_NAME = hostname().includes('.') ? hostname() : '[127.0.0.1]';

/** Socket errors worth their own code in a reason (the vendor retries them all); anything else is ECONNECTION. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * One SMTP connection: connect (TLS or STARTTLS), EHLO, AUTH, then transactions. Where
 * the server offers PIPELINING (RFC 2920) MAIL, RCPT and DATA go in one write, then the
 * message and its `.` in one, together with the next transaction's commands when one
 * waits: a write and a round trip per message. Without PIPELINING each command waits
 * for its reply. Any failure of the connection itself (closed, reset, a reply late)
 * fails what waits on it and closes it for good.
 */
export class SmtpConnection {
  private socket: Socket;
  private reader = new ReplyReader();
  private readonly waiters: Array<{ resolve: (reply: SmtpReply) => void; reject: (error: Error) => void }> = [];
  private replyTimer?: NodeJS.Timeout;
  private failure?: Error;
  private capabilities: SmtpCapabilities = NO_CAPABILITIES;
  private readonly closeListeners: Array<() => void> = [];
  private corked = false;
  transactions = 0;

  private constructor(
    private readonly options: SmtpServerOptions,
    socket: Socket,
  ) {
    this.socket = socket;
    this.listen(socket);
  }

  /** A connection ready for transactions: greeted, EHLO answered, upgraded to TLS and authenticated as configured. */
  static async open(options: SmtpServerOptions): Promise<SmtpConnection> {
    const connection = new SmtpConnection(options, await connectSocket(options));
    try {
      await connection.handshake();
      return connection;
    } catch (error) {
      connection.destroy(error as Error);
      throw error;
    }
  }

  get closed(): boolean {
    return this.failure !== undefined;
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  /**
   * One transaction. Throws an SmtpError; after a refusal the connection is reset and
   * stays usable. With PIPELINING, `onMessageWritten` is called once the message is
   * written, before its reply: the next transaction may start then, and its commands go
   * out in the same write as this message (RFC 2920 allows the message to open a group).
   */
  async send(envelope: SmtpEnvelope, message: Buffer, onMessageWritten?: () => void): Promise<SmtpSent> {
    const commands = transactionCommands(envelope, message, this.capabilities);
    this.transactions++;
    const replies = this.capabilities.pipelining ? await this.commands(commands) : await this.lockStep(commands, envelope.to.length);
    const decision = decideEnvelope(envelope.to, replies);
    if (decision.kind === 'failed') {
      if (decision.abandon) this.destroy(new SmtpError('DATA accepted after a refused envelope', 'EPROTOCOL'));
      else await this.reset();
      throw decision.error;
    }
    const written = this.write(dataBlock(message), 1);
    if (this.capabilities.pipelining) onMessageWritten?.();
    const [final] = await written;
    if (!(final.code >= 200 && final.code < 300)) throw new SmtpError('message refused', 'EMESSAGE', final);
    return { accepted: decision.accepted, rejected: decision.rejected, response: replyText(final) };
  }

  /** Ends the session politely; the server closes the connection. */
  quit(): void {
    if (this.closed) return;
    this.commands(['QUIT'])
      .catch(() => undefined)
      .finally(() => this.destroy(new SmtpError('connection closed', 'ECONNECTION')));
  }

  destroy(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    clearTimeout(this.replyTimer);
    this.socket.destroy();
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
    for (const listener of this.closeListeners.splice(0)) listener();
  }

  private async handshake(): Promise<void> {
    const [greeting] = await this.expectReplies(1);
    if (greeting.code !== 220) throw new SmtpError('greeting refused', 'EPROTOCOL', greeting);
    await this.hello();
    if (!this.options.secure && this.capabilities.startTls) {
      const [ready] = await this.commands(['STARTTLS']);
      if (ready.code !== 220) throw new SmtpError('STARTTLS refused', 'ETLS', ready);
      await this.upgradeToTls();
      await this.hello();
    }
    const auth = this.options.auth;
    // As before: authenticate where the server offers AUTH at all.
    if (auth && this.capabilities.auth.length > 0) await this.authenticate(auth.user, auth.pass);
  }

  private async hello(): Promise<void> {
    const [ehlo] = await this.commands([`EHLO ${EHLO_NAME}`]);
    if (ehlo.code === 250) {
      this.capabilities = capabilitiesOf(ehlo);
      return;
    }
    // A server without ESMTP: HELO, and no extensions.
    const [helo] = await this.commands([`HELO ${EHLO_NAME}`]);
    if (helo.code !== 250) throw new SmtpError('EHLO and HELO refused', 'EPROTOCOL', helo);
    this.capabilities = NO_CAPABILITIES;
  }

  private async authenticate(user: string, pass: string): Promise<void> {
    const mechanism = authMechanismFor(this.capabilities);
    if (!mechanism) throw new SmtpError(`the server offers no AUTH mechanism Herald supports (${this.capabilities.auth.join(' ')})`, 'EAUTH');
    let reply: SmtpReply;
    if (mechanism === 'PLAIN') {
      [reply] = await this.commands([`AUTH PLAIN ${Buffer.from(`\0${user}\0${pass}`, 'utf8').toString('base64')}`]);
    } else {
      [reply] = await this.commands(['AUTH LOGIN']);
      for (const answer of [user, pass]) {
        if (reply.code !== 334) break;
        [reply] = await this.commands([Buffer.from(answer, 'utf8').toString('base64')]);
      }
    }
    if (reply.code !== 235) throw new SmtpError(`AUTH ${mechanism} refused`, 'EAUTH', reply);
  }

  private async upgradeToTls(): Promise<void> {
    const plain = this.socket;
    for (const event of ['data', 'error', 'close']) plain.removeAllListeners(event);
    this.reader = new ReplyReader();
    const secured = await new Promise<TLSSocket>((resolve, reject) => {
      const timer = setTimeout(() => socket.destroy(new SmtpError('TLS handshake timed out', 'ETIMEDOUT')), this.options.connectionTimeoutMs);
      const failed = (error: Error): void => {
        clearTimeout(timer);
        reject(new SmtpError(`TLS failed: ${error.message}`, 'ETLS'));
      };
      const socket = connectTls({ ...this.options.tls, host: this.options.address, socket: plain }, () => {
        clearTimeout(timer);
        socket.removeListener('error', failed);
        resolve(socket);
      });
      socket.once('error', failed);
    });
    this.socket = secured;
    this.listen(secured);
  }

  /** Lock-step: each command waits for its reply; stops after a refused MAIL, and before DATA when no recipient was accepted. */
  private async lockStep(commands: readonly string[], recipients: number): Promise<SmtpReply[]> {
    const replies: SmtpReply[] = [];
    for (let index = 0; index < commands.length; index++) {
      const [reply] = await this.commands([commands[index]]);
      replies.push(reply);
      if (index === 0 && !(reply.code >= 200 && reply.code < 300)) break;
      if (index === recipients && !replies.slice(1).some((rcpt) => rcpt.code >= 200 && rcpt.code < 300)) break;
    }
    return replies;
  }

  private async reset(): Promise<void> {
    try {
      const [reply] = await this.commands(['RSET']);
      if (reply.code !== 250) this.destroy(new SmtpError('RSET refused', 'EPROTOCOL', reply));
    } catch {
      // The connection failed: closed already.
    }
  }

  /** Writes the command lines in one write and awaits a reply to each. */
  private commands(lines: readonly string[]): Promise<SmtpReply[]> {
    return this.write(lines.map((line) => `${line}\r\n`).join(''), lines.length);
  }

  /**
   * Writes of one turn of the event loop go out in one system call (corked until
   * `setImmediate`): a message and the next transaction's commands, started as it was
   * written, are one write and one packet.
   */
  private write(bytes: string | Buffer, replies: number): Promise<SmtpReply[]> {
    const answered = this.expectReplies(replies);
    if (this.closed) return answered;
    const socket = this.socket;
    if (!this.corked) {
      this.corked = true;
      socket.cork();
      setImmediate(() => {
        this.corked = false;
        socket.uncork();
      });
    }
    socket.write(bytes);
    return answered;
  }

  private expectReplies(count: number): Promise<SmtpReply[]> {
    if (this.failure) return Promise.reject(this.failure);
    const replies: Array<Promise<SmtpReply>> = [];
    for (let index = 0; index < count; index++) replies.push(new Promise((resolve, reject) => this.waiters.push({ resolve, reject })));
    this.armReplyTimer();
    return Promise.all(replies);
  }

  private armReplyTimer(): void {
    clearTimeout(this.replyTimer);
    if (this.waiters.length === 0) return;
    this.replyTimer = setTimeout(() => this.destroy(new SmtpError(`no reply within ${this.options.replyTimeoutMs} ms`, 'ETIMEDOUT')), this.options.replyTimeoutMs);
  }

  private listen(socket: Socket): void {
    socket.on('data', (chunk: Buffer) => {
      let replies: SmtpReply[];
      try {
        replies = this.reader.push(chunk);
      } catch (error) {
        return this.destroy(error as Error);
      }
      for (const reply of replies) {
        const waiter = this.waiters.shift();
        if (waiter) waiter.resolve(reply);
        // A reply nobody asked for: the server is closing (421) or confused; either way, not to be trusted with a message.
        else this.destroy(new SmtpError('unexpected reply', 'EPROTOCOL', reply));
      }
      if (replies.length > 0) this.armReplyTimer();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => this.destroy(socketError(error)));
    socket.on('close', () => this.destroy(new SmtpError('connection closed by the server', 'ECONNECTION')));
  }
}

function socketError(error: NodeJS.ErrnoException): SmtpError {
  return new SmtpError(error.message, error.code && SOCKET_CODES.has(error.code) ? error.code : 'ECONNECTION');
}

/** TCP with Nagle's algorithm off (every write is a whole batch of commands or a whole message), or TLS over it. */
function connectSocket(options: SmtpServerOptions): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket: Socket = options.secure
      ? connectTls({ ...options.tls, host: options.address, port: options.port })
      : connectTcp({ host: options.address, port: options.port, noDelay: true });
    if (options.secure) socket.setNoDelay(true);
    const timer = setTimeout(() => socket.destroy(new SmtpError(`connection to ${options.address}:${options.port} timed out`, 'ETIMEDOUT')), options.connectionTimeoutMs);
    const failed = (error: NodeJS.ErrnoException): void => {
      clearTimeout(timer);
      reject(error instanceof SmtpError ? error : socketError(error));
    };
    socket.once('error', failed);
    socket.once(options.secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      socket.removeListener('error', failed);
      socket.setKeepAlive(true);
      resolve(socket);
    });
  });
}

interface QueuedSend {
  readonly envelope: SmtpEnvelope;
  readonly message: Buffer;
  readonly resolve: (sent: SmtpSent) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Up to `maxConnections` connections to one server; a send takes an idle one or waits
 * for the next free. A connection is opened when sends wait and the pool is not full,
 * closed after `maxMessagesPerConnection` transactions or `replyTimeoutMs` unused; one
 * that fails is dropped, and what was in flight on it fails (retryable: the outcome is
 * unknown, as with any lost connection).
 */
export class SmtpPool {
  private readonly connections = new Set<SmtpConnection>();
  private readonly idle: SmtpConnection[] = [];
  private readonly idleTimers = new Map<SmtpConnection, NodeJS.Timeout>();
  private readonly queue: QueuedSend[] = [];
  private opening = 0;
  private closed = false;

  constructor(private readonly options: SmtpPoolOptions) {}

  send(envelope: SmtpEnvelope, message: Buffer): Promise<SmtpSent> {
    if (this.closed) return Promise.reject(new SmtpError('the SMTP pool is closed', 'ECONNECTION'));
    return new Promise((resolve, reject) => {
      this.queue.push({ envelope, message, resolve, reject });
      this.dispatch();
    });
  }

  /** Fails the sends still waiting and closes idle connections; busy ones close after their transaction. */
  close(): void {
    this.closed = true;
    for (const queued of this.queue.splice(0)) queued.reject(new SmtpError('the SMTP pool was closed', 'ECONNECTION'));
    for (const connection of this.idle.splice(0)) this.retire(connection);
  }

  private dispatch(): void {
    while (this.queue.length > 0 && this.idle.length > 0) {
      const connection = this.idle.pop() as SmtpConnection;
      clearTimeout(this.idleTimers.get(connection));
      this.idleTimers.delete(connection);
      if (!connection.closed) this.run(connection, this.queue.shift() as QueuedSend);
    }
    while (!this.closed && this.queue.length > this.opening && this.connections.size + this.opening < this.options.maxConnections) this.open();
  }

  private open(): void {
    this.opening++;
    SmtpConnection.open(this.options).then(
      (connection) => {
        this.opening--;
        this.connections.add(connection);
        connection.onClose(() => {
          this.connections.delete(connection);
          const idleAt = this.idle.indexOf(connection);
          if (idleAt >= 0) this.idle.splice(idleAt, 1);
          clearTimeout(this.idleTimers.get(connection));
          this.idleTimers.delete(connection);
          this.dispatch();
        });
        this.release(connection);
      },
      (error: Error) => {
        this.opening--;
        // The send that asked for this connection learns why it could not be sent; the others wait for the next attempt.
        this.queue.shift()?.reject(error);
        this.dispatch();
      },
    );
  }

  /** The connection is free for the next send once this message is written (pipelined) or answered (lock-step). */
  private run(connection: SmtpConnection, queued: QueuedSend): void {
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.release(connection);
    };
    connection.send(queued.envelope, queued.message, release).then(queued.resolve, queued.reject).finally(release);
  }

  private release(connection: SmtpConnection): void {
    if (connection.closed) return;
    if (this.closed || connection.transactions >= this.options.maxMessagesPerConnection) {
      this.retire(connection);
      this.dispatch();
      return;
    }
    const next = this.queue.shift();
    if (next) return this.run(connection, next);
    this.idle.push(connection);
    const timer = setTimeout(() => this.retire(connection), this.options.replyTimeoutMs);
    timer.unref();
    this.idleTimers.set(connection, timer);
  }

  private retire(connection: SmtpConnection): void {
    const idleAt = this.idle.indexOf(connection);
    if (idleAt >= 0) this.idle.splice(idleAt, 1);
    clearTimeout(this.idleTimers.get(connection));
    this.idleTimers.delete(connection);
    this.connections.delete(connection);
    connection.quit();
  }
}

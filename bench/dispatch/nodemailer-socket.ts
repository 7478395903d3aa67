import { Socket, connect } from 'node:net';

/** What nodemailer's `getSocket` hands back: an open connection it speaks SMTP over (and upgrades to TLS when `secure`). */
export type SmtpSocketCallback = (error: Error | null, socket?: { connection: Socket }) => void;

/**
 * The dispatch bench's nodemailer peer: the socket the SMTP vendor gave nodemailer until
 * it had a client of its own (libs/services/channel-dispatchers/src/vendors/email/smtp-client.ts),
 * so the peer is nodemailer at its best.
 *
 * nodemailer's `getSocket` for a pooled transport: a TCP connection to `address` with
 * Nagle's algorithm off. nodemailer writes a message's last line (`.`) as a small write
 * of its own; with Nagle on it waits for the ACK of the data before it, which the server
 * delays (40 ms on Linux) until it has something to answer, so each message paid a
 * delayed ACK: about 20 to 50 ms per message and connection (bench/results-archive/2026-11-results-diary.md, Dispatch).
 * nodemailer's own connect cannot turn Nagle off.
 *
 * Without Nagle every write is a packet and a system call of its own (on loopback the
 * sender's call also does the receiver's TCP work), and nodemailer writes a message in
 * about twelve: each command, each part of the MIME stream, the final `.`. So the
 * socket gathers the writes of one turn of the event loop into one: see
 * gatherWritesPerTurn (six per message instead of twelve).
 */
export function smtpSocket(address: string, port: number, connectTimeoutMs: number): (options: unknown, callback: SmtpSocketCallback) => void {
  return (_options, callback) => {
    const socket = gatherWritesPerTurn(connect({ host: address, port, noDelay: true }));
    const timer = setTimeout(() => socket.destroy(Object.assign(new Error(`connection to ${address}:${port} timed out`), { code: 'ETIMEDOUT' })), connectTimeoutMs);
    const failed = (error: Error): void => {
      clearTimeout(timer);
      callback(Object.assign(error, { code: (error as NodeJS.ErrnoException).code ?? 'ECONNECTION' }));
    };
    socket.once('error', failed);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeListener('error', failed);
      socket.setKeepAlive(true);
      callback(null, { connection: socket });
    });
  };
}

/**
 * Gathers the writes a socket gets within one turn of the event loop into one system
 * call: the first write corks the socket, and `setImmediate` uncorks it once this turn's
 * callbacks (a stream's chunks passed on through nextTicks and promises) have run. A
 * write waits at most for the rest of the turn, never for an ACK as with Nagle.
 * TLS bypasses it (a TLS socket writes to the connection's handle directly).
 */
export function gatherWritesPerTurn(socket: Socket): Socket {
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  let corked = false;
  const uncork = (): void => {
    corked = false;
    socket.uncork();
  };
  socket.write = ((...args: unknown[]): boolean => {
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(uncork);
    }
    return write(...args);
  }) as Socket['write'];
  return socket;
}

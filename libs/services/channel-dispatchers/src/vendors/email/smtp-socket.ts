import { Socket, connect } from 'node:net';

/** What nodemailer's `getSocket` hands back: an open connection it speaks SMTP over (and upgrades to TLS when `secure`). */
export type SmtpSocketCallback = (error: Error | null, socket?: { connection: Socket }) => void;

/**
 * nodemailer's `getSocket` for a pooled transport: a TCP connection to `address` with
 * Nagle's algorithm off. nodemailer writes a message's last line (`.`) as a small write
 * of its own; with Nagle on it waits for the ACK of the data before it, which the server
 * delays (40 ms on Linux) until it has something to answer, so each message paid a
 * delayed ACK: about 20 to 50 ms per message and connection (bench/RESULTS.md, Dispatch).
 * nodemailer's own connect cannot turn Nagle off.
 */
export function smtpSocket(address: string, port: number, connectTimeoutMs: number): (options: unknown, callback: SmtpSocketCallback) => void {
  return (_options, callback) => {
    const socket = connect({ host: address, port, noDelay: true });
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

import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  readonly from: string;
  readonly to: readonly string[];
  readonly username?: string;
  /** The raw RFC 5322 message. */
  readonly raw: string;
}

/** A local SMTP server (plain, AUTH allowed without TLS) that keeps what it received. */
export class LocalSmtpServer {
  private readonly waiters: Array<() => void> = [];

  private constructor(
    private readonly server: SMTPServer,
    readonly mails: ReceivedMail[],
    onMail: { notify: () => void },
  ) {
    onMail.notify = () => this.waiters.forEach((waiter) => waiter());
  }

  static async start(options: { username: string; password: string; rejectWith?: { code: number; message: string } }): Promise<LocalSmtpServer> {
    const mails: ReceivedMail[] = [];
    const onMail = { notify: (): void => undefined };
    const server = new SMTPServer({
      secure: false,
      // Pooled client connections would otherwise hold close() for its 30 s default.
      closeTimeout: 100,
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      onAuth: (auth, _session, callback) =>
        auth.username === options.username && auth.password === options.password ? callback(null, { user: auth.username }) : callback(new Error('invalid credentials')),
      onRcptTo: (_address, _session, callback) => {
        const rejection = options.rejectWith;
        if (rejection) return callback(Object.assign(new Error(rejection.message), { responseCode: rejection.code }));
        callback();
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            username: session.user as string | undefined,
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          onMail.notify();
          callback();
        });
      },
    });
    const local = new LocalSmtpServer(server, mails, onMail);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return local;
  }

  get port(): number {
    return (this.server.server.address() as AddressInfo).port;
  }

  received(count: number): Promise<void> {
    if (this.mails.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(() => this.mails.length >= count && resolve()));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

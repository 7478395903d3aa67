import { AddressInfo, Server, Socket, connect, createServer } from 'node:net';
import { SMTPServer, SMTPServerOptions } from 'smtp-server';
import { SmtpPool, SmtpPoolOptions } from './smtp-client';
import { SmtpError } from './smtp-protocol';

interface Received {
  readonly from: string;
  readonly to: string[];
  readonly raw: string;
  readonly secure: boolean;
  readonly user?: string;
}

/** A real smtp-server (PIPELINING unless hidden, plain unless asked), behind a proxy that records what the client writes, chunk by chunk. */
async function startServer(options: Partial<SMTPServerOptions> & { refuse?: Record<string, number>; dropOnData?: boolean } = {}) {
  const mails: Received[] = [];
  const clientChunks: string[] = [];
  let connections = 0;
  let open = 0;
  let mostOpen = 0;
  const { refuse = {}, dropOnData = false, ...serverOptions } = options;
  const server = new SMTPServer({
    closeTimeout: 100,
    // STARTTLS only where a test asks for it (the built-in certificate has expired; those tests accept it).
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    onConnect: (_session, callback) => {
      connections++;
      mostOpen = Math.max(mostOpen, ++open);
      callback();
    },
    onClose: () => {
      open--;
    },
    onAuth: (auth, _session, callback) => (auth.username === 'mailer' && auth.password === 'secret' ? callback(null, { user: auth.username }) : callback(new Error('invalid credentials'))),
    onRcptTo: (address, _session, callback) => {
      const code = refuse[address.address];
      if (code) return callback(Object.assign(new Error(`no thanks ${address.address}`), { responseCode: code }));
      callback();
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (dropOnData) {
          // The connection is lost after the whole message arrived, before the reply: the outcome is unknown.
          for (const socket of proxied) socket.destroy();
          return;
        }
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          secure: session.secure,
          user: session.user as string | undefined,
        });
        callback();
      });
    },
    ...serverOptions,
  });
  // A client that hangs up during TLS (the certificate test) is an error event of the server's.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const smtpPort = (server.server.address() as AddressInfo).port;
  const proxied = new Set<Socket>();
  const proxy: Server = createServer((client) => {
    const upstream = connect({ host: '127.0.0.1', port: smtpPort, noDelay: true });
    proxied.add(client);
    client.on('data', (chunk: Buffer) => clientChunks.push(chunk.toString('latin1')));
    client.pipe(upstream).pipe(client);
    const end = (): void => {
      proxied.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  return {
    mails,
    clientChunks,
    connections: () => connections,
    mostOpen: () => mostOpen,
    port: (proxy.address() as AddressInfo).port,
    close: async () => {
      for (const socket of proxied) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const poolFor = (port: number, options: Partial<SmtpPoolOptions> = {}): SmtpPool =>
  new SmtpPool({
    address: '127.0.0.1',
    port,
    secure: false,
    auth: { user: 'mailer', pass: 'secret' },
    connectionTimeoutMs: 2_000,
    replyTimeoutMs: 2_000,
    maxConnections: 4,
    maxMessagesPerConnection: 100,
    ...options,
  });

const message = (subject: string, body = 'Hi'): Buffer => Buffer.from(`From: a@acme.test\r\nTo: ada@example.com\r\nSubject: ${subject}\r\n\r\n${body}\r\n`);
const failureOf = (promise: Promise<unknown>): Promise<SmtpError> =>
  promise.then(
    () => {
      throw new Error('expected the send to fail');
    },
    (error: SmtpError) => error,
  );

describe('SmtpPool', () => {
  let servers: Array<{ close: () => Promise<void> }> = [];
  let pools: SmtpPool[] = [];
  const serve = async (options?: Parameters<typeof startServer>[0]) => {
    const server = await startServer(options);
    servers.push(server);
    return server;
  };
  const pool = (port: number, options?: Partial<SmtpPoolOptions>) => {
    const created = poolFor(port, options);
    pools.push(created);
    return created;
  };
  afterEach(async () => {
    for (const created of pools) created.close();
    await Promise.all(servers.map((server) => server.close()));
    servers = [];
    pools = [];
  });

  it('pipelines MAIL, RCPT and DATA in one write where the server offers PIPELINING, and the message with its final dot in one more', async () => {
    const server = await serve();
    const sent = await pool(server.port).send({ from: 'a@acme.test', to: ['ada@example.com'] }, message('One'));
    expect(sent).toMatchObject({ accepted: ['ada@example.com'], rejected: [], response: expect.stringMatching(/^250 /) });
    expect(server.mails).toEqual([expect.objectContaining({ from: 'a@acme.test', to: ['ada@example.com'], user: 'mailer', raw: message('One').toString() })]);
    expect(server.clientChunks).toContain('MAIL FROM:<a@acme.test>\r\nRCPT TO:<ada@example.com>\r\nDATA\r\n');
    expect(server.clientChunks).toContain(`${message('One').toString()}.\r\n`);
  });

  it("writes the next message's MAIL, RCPT and DATA with a message's final dot when sends wait for the connection", async () => {
    const server = await serve();
    const smtp = pool(server.port, { maxConnections: 1 });
    await Promise.all(['One', 'Two', 'Three'].map((subject, index) => smtp.send({ from: 'a@acme.test', to: [`r${index}@example.com`] }, message(subject))));
    expect(server.mails.map((mail) => mail.to[0])).toEqual(['r0@example.com', 'r1@example.com', 'r2@example.com']);
    expect(server.clientChunks).toContain(`${message('One').toString()}.\r\nMAIL FROM:<a@acme.test>\r\nRCPT TO:<r1@example.com>\r\nDATA\r\n`);
    expect(server.clientChunks).toContain(`${message('Two').toString()}.\r\nMAIL FROM:<a@acme.test>\r\nRCPT TO:<r2@example.com>\r\nDATA\r\n`);
  });

  it('goes lock-step, a command per reply, where the server does not offer PIPELINING', async () => {
    const server = await serve({ hidePIPELINING: true });
    const sent = await pool(server.port).send({ from: 'a@acme.test', to: ['ada@example.com', 'bob@example.com'] }, message('Two'));
    expect(sent.accepted).toEqual(['ada@example.com', 'bob@example.com']);
    expect(server.mails).toHaveLength(1);
    expect(server.clientChunks).toEqual(expect.arrayContaining(['MAIL FROM:<a@acme.test>\r\n', 'RCPT TO:<ada@example.com>\r\n', 'RCPT TO:<bob@example.com>\r\n', 'DATA\r\n']));
    expect(server.clientChunks.some((chunk) => chunk.includes('MAIL FROM') && chunk.includes('RCPT TO'))).toBe(false);
  });

  it.each([
    ['pipelined', false],
    ['lock-step', true],
  ])('%s: delivers to the recipients accepted, reports those refused, fails with the reply when all are refused, and the connection goes on', async (_mode, hidePIPELINING) => {
    const server = await serve({ hidePIPELINING, refuse: { 'gone@example.com': 550, 'busy@example.com': 450 } });
    const smtp = pool(server.port, { maxConnections: 1 });
    const partly = await smtp.send({ from: 'a@acme.test', to: ['gone@example.com', 'ada@example.com'] }, message('Partly'));
    expect(partly).toMatchObject({ accepted: ['ada@example.com'], rejected: [{ recipient: 'gone@example.com', responseCode: 550, response: expect.stringContaining('no thanks') }] });
    const busy = await failureOf(smtp.send({ from: 'a@acme.test', to: ['busy@example.com'] }, message('Busy')));
    expect(busy).toMatchObject({ code: 'EENVELOPE', responseCode: 450 });
    const gone = await failureOf(smtp.send({ from: 'a@acme.test', to: ['gone@example.com'] }, message('Gone')));
    expect(gone).toMatchObject({ code: 'EENVELOPE', responseCode: 550 });
    await smtp.send({ from: 'a@acme.test', to: ['ada@example.com'] }, message('After'));
    expect(server.mails.map((mail) => [mail.to, mail.raw.match(/Subject: (\w+)/)?.[1]])).toEqual([
      [['ada@example.com'], 'Partly'],
      [['ada@example.com'], 'After'],
    ]);
    expect(server.connections()).toBe(1);
  });

  it('doubles a dot that starts a line and makes bare line feeds CRLF, so the server receives the message as written', async () => {
    const server = await serve();
    const body = '.starts with a dot\r\n..two dots\r\n.\r\nbare\nline feed\r\n.';
    await pool(server.port).send({ from: 'a@acme.test', to: ['ada@example.com'] }, message('Dots', body));
    expect(server.mails[0].raw).toBe(message('Dots', body).toString().replace('bare\nline', 'bare\r\nline'));
    expect(server.clientChunks.join('')).toContain('\r\n..starts with a dot\r\n...two dots\r\n..\r\nbare\r\nline feed\r\n..\r\n.\r\n');
  });

  it('declares SIZE and 8-bit content where offered, and refuses a message over the SIZE limit without sending it', async () => {
    const server = await serve({ size: 400 });
    const smtp = pool(server.port);
    await smtp.send({ from: 'a@acme.test', to: ['ada@example.com'] }, message('Size', 'Grüße'));
    const mailCommand = server.clientChunks.find((chunk) => chunk.startsWith('MAIL FROM'));
    expect(mailCommand).toMatch(/^MAIL FROM:<a@acme\.test> SIZE=\d+ BODY=8BITMIME\r\n/);
    const tooBig = await failureOf(smtp.send({ from: 'a@acme.test', to: ['ada@example.com'] }, message('Big', 'x'.repeat(500))));
    expect(tooBig).toMatchObject({ code: 'EMESSAGE', responseCode: 552 });
    expect(server.mails).toHaveLength(1);
  });

  it('upgrades with STARTTLS where offered, and authenticates with LOGIN where PLAIN is not offered', async () => {
    const server = await serve({ authMethods: ['LOGIN'], disabledCommands: [] });
    await pool(server.port, { tls: { rejectUnauthorized: false } }).send({ from: 'a@acme.test', to: ['ada@example.com'] }, message('Tls'));
    expect(server.mails).toEqual([expect.objectContaining({ secure: true, user: 'mailer' })]);
    expect(server.clientChunks.join('')).not.toContain('MAIL FROM');
  });

  it('speaks TLS from the first byte when secure', async () => {
    const server = await serve({ secure: true });
    await pool(server.port, { secure: true, tls: { rejectUnauthorized: false } }).send({ from: 'a@acme.test', to: ['ada@example.com'] }, message('Secure'));
    expect(server.mails).toEqual([expect.objectContaining({ secure: true })]);
  });

  it('refuses a certificate it cannot verify', async () => {
    const server = await serve({ secure: true });
    const error = await failureOf(pool(server.port, { secure: true, tls: { servername: 'mail.acme.test' } }).send({ from: 'a@acme.test', to: ['ada@example.com'] }, message('Untrusted')));
    expect(error.code).toBe('ECONNECTION');
    expect(server.mails).toHaveLength(0);
  });

  it('a wrong password fails with the server reply (5xx); a 4xx greeting fails with its reply', async () => {
    const server = await serve();
    expect(await failureOf(pool(server.port, { auth: { user: 'mailer', pass: 'wrong' } }).send({ from: 'a@acme.test', to: ['ada@example.com'] }, message('Auth')))).toMatchObject({ code: 'EAUTH', responseCode: 535 });
    const busy = await serve({ onConnect: (_session, callback) => callback(Object.assign(new Error('too busy'), { responseCode: 421 })) });
    expect(await failureOf(pool(busy.port).send({ from: 'a@acme.test', to: ['ada@example.com'] }, message('Busy')))).toMatchObject({ responseCode: 421 });
  });

  it('a connection lost after the message fails the send as a connection failure, and the next send opens a new connection', async () => {
    const server = await serve({ dropOnData: true });
    const smtp = pool(server.port, { maxConnections: 1 });
    expect(await failureOf(smtp.send({ from: 'a@acme.test', to: ['ada@example.com'] }, message('Lost')))).toMatchObject({ code: 'ECONNECTION' });
    expect(await failureOf(smtp.send({ from: 'a@acme.test', to: ['ada@example.com'] }, message('Lost again')))).toMatchObject({ code: 'ECONNECTION' });
    expect(server.connections()).toBe(2);
  });

  it('a reply that does not come in time fails the send as a timeout', async () => {
    // Greets, answers EHLO, then goes silent.
    const silent = createServer((socket) => {
      socket.write('220 silent\r\n');
      socket.once('data', () => socket.write('250 silent\r\n'));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    servers.push({ close: () => new Promise<void>((resolve) => silent.close(() => resolve())) });
    const smtp = pool((silent.address() as AddressInfo).port, { replyTimeoutMs: 200 });
    expect(await failureOf(smtp.send({ from: 'a@acme.test', to: ['ada@example.com'] }, message('Silent')))).toMatchObject({ code: 'ETIMEDOUT' });
    smtp.close();
  });

  it('a refused connection fails the send', async () => {
    expect(await failureOf(pool(1).send({ from: 'a@acme.test', to: ['ada@example.com'] }, message('Refused')))).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('spreads concurrent sends over at most maxConnections connections and renews a connection after maxMessagesPerConnection', async () => {
    const server = await serve();
    const smtp = pool(server.port, { maxConnections: 3, maxMessagesPerConnection: 5 });
    const sends = Array.from({ length: 30 }, (_, index) => smtp.send({ from: 'a@acme.test', to: [`r${index}@example.com`] }, message(`M${index}`)));
    await Promise.all(sends);
    expect(server.mails).toHaveLength(30);
    expect(new Set(server.mails.map((mail) => mail.to[0])).size).toBe(30);
    // 30 messages at 5 a connection: at least 6 connections, never more than 3 at a time.
    expect(server.connections()).toBeGreaterThanOrEqual(6);
    expect(server.mostOpen()).toBeLessThanOrEqual(3);
  });
});

import { LocalSmtpServer } from '../../testing/local-smtp-server';
import { AddressGuard } from '../net/address-guard';
import { VendorConfig } from '../vendor.port';
import { SmtpVendor } from './smtp-vendor';

describe('SmtpVendor', () => {
  // The local server listens on loopback, which the outbound rule refuses unless allowed.
  const smtp = new SmtpVendor(new AddressGuard(['127.0.0.0/8']));
  afterAll(() => smtp.close());

  const configFor = (port: number, password = 'secret', host = '127.0.0.1'): VendorConfig => ({
    id: `smtp-${port}-${password}`,
    channel: 'email',
    vendor: 'smtp',
    priority: 1,
    baseUrl: null,
    settings: {},
    credentials: { host, port, secure: false, username: 'mailer', password, from: 'Acme <noreply@acme.test>' },
    version: 1,
  });
  const send = (config: VendorConfig, vendor = smtp) =>
    vendor.send({
      deliveryId: 'd-1',
      workspaceId: 'w',
      content: { channel: 'email', subject: 'Welcome Ada', html: '<p>Hi</p>', text: 'Hi' },
      identity: 'ada@example.com',
      config,
      idempotencyKey: 'idem-1',
    });

  it('authenticates and delivers the message with the delivery-derived Message-ID', async () => {
    const server = await LocalSmtpServer.start({ username: 'mailer', password: 'secret' });
    try {
      expect(await send(configFor(server.port))).toEqual({ ok: true, vendorMessageId: '<idem-1@herald>', answer: expect.stringMatching(/^250 /) });
      await server.received(1);
      const [mail] = server.mails;
      expect(mail).toMatchObject({ from: 'noreply@acme.test', to: ['ada@example.com'], username: 'mailer' });
      expect(mail.raw).toContain('Subject: Welcome Ada');
      expect(mail.raw).toContain('Message-ID: <idem-1@herald>');
    } finally {
      await server.close();
    }
  });

  it('sends the loaded attachments as MIME parts', async () => {
    const server = await LocalSmtpServer.start({ username: 'mailer', password: 'secret' });
    const pdf = Buffer.from('%PDF-1.4 invoice');
    try {
      const result = await smtp.send({
        deliveryId: 'd-2',
        workspaceId: 'w',
        content: { channel: 'email', subject: 'Invoice', text: 'Attached', attachments: [{ filename: 'invoice.pdf', contentType: 'application/pdf', content: pdf }] },
        identity: 'ada@example.com',
        config: configFor(server.port),
        idempotencyKey: 'idem-2',
      });
      expect(result).toMatchObject({ ok: true });
      await server.received(1);
      const raw = server.mails[0].raw;
      expect(raw).toMatch(/Content-Type: multipart\/mixed/);
      expect(raw).toMatch(/Content-Type: application\/pdf; name=invoice\.pdf\r\nContent-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=invoice\.pdf/);
      expect(raw).toContain(pdf.toString('base64'));
    } finally {
      await server.close();
    }
  });

  it('a 4xx reply is retryable, a wrong password permanent, a refused connection retryable', async () => {
    const busy = await LocalSmtpServer.start({ username: 'mailer', password: 'secret', rejectWith: { code: 451, message: 'try again later' } });
    try {
      expect(await send(configFor(busy.port))).toMatchObject({ ok: false, retryable: true, reason: expect.stringContaining('451') });
      expect(await send(configFor(busy.port, 'wrong'))).toMatchObject({ ok: false, retryable: false });
    } finally {
      await busy.close();
    }
    expect(await send(configFor(1))).toMatchObject({ ok: false, retryable: true });
  });

  it('refuses a server whose host resolves to a private address the rule does not allow, before connecting', async () => {
    const server = await LocalSmtpServer.start({ username: 'mailer', password: 'secret' });
    // mail.internal resolves to loopback, then to a private range; only 127.0.0.0/8 is allowed here.
    const resolvesTo = (address: string) => async () => [{ address, family: 4 }];
    const loopbackOnly = new SmtpVendor(new AddressGuard([], resolvesTo('127.0.0.1')));
    const privateHost = new SmtpVendor(new AddressGuard(['127.0.0.0/8'], resolvesTo('10.1.2.3')));
    try {
      // Refused by configuration: retried, so fixing HERALD_OUTBOUND_ALLOW lets the message out.
      expect(await send(configFor(server.port, 'secret', 'mail.internal'), loopbackOnly)).toMatchObject({
        ok: false,
        retryable: true,
        reason: expect.stringContaining('mail.internal resolves to 127.0.0.1 (loopback), which is not allowed'),
      });
      expect(await send(configFor(server.port, 'secret', 'mail.internal'), privateHost)).toMatchObject({ ok: false, retryable: true, reason: expect.stringContaining('(private)') });
      expect(server.mails).toHaveLength(0);
    } finally {
      loopbackOnly.close();
      privateHost.close();
      await server.close();
    }
  });

  it('connects to the checked address of a host name', async () => {
    const server = await LocalSmtpServer.start({ username: 'mailer', password: 'secret' });
    const named = new SmtpVendor(new AddressGuard(['127.0.0.0/8'], async () => [{ address: '127.0.0.1', family: 4 }]));
    try {
      expect(await send(configFor(server.port, 'secret', 'mail.acme.test'), named)).toMatchObject({ ok: true });
      await server.received(1);
    } finally {
      named.close();
      await server.close();
    }
  });
});

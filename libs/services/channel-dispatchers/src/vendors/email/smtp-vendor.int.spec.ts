import { LocalSmtpServer } from '../../testing/local-smtp-server';
import { VendorConfig } from '../vendor.port';
import { SmtpVendor } from './smtp-vendor';

describe('SmtpVendor', () => {
  const smtp = new SmtpVendor();
  afterAll(() => smtp.close());

  const configFor = (port: number, password = 'secret'): VendorConfig => ({
    id: `smtp-${port}-${password}`,
    channel: 'email',
    vendor: 'smtp',
    priority: 1,
    baseUrl: null,
    settings: {},
    credentials: { host: '127.0.0.1', port, secure: false, username: 'mailer', password, from: 'Acme <noreply@acme.test>' },
    version: 1,
  });
  const send = (config: VendorConfig) =>
    smtp.send({
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
      expect(await send(configFor(server.port))).toEqual({ ok: true, vendorMessageId: '<idem-1@herald>' });
      await server.received(1);
      const [mail] = server.mails;
      expect(mail).toMatchObject({ from: 'noreply@acme.test', to: ['ada@example.com'], username: 'mailer' });
      expect(mail.raw).toContain('Subject: Welcome Ada');
      expect(mail.raw).toContain('Message-ID: <idem-1@herald>');
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
});

import { isIP } from 'node:net';
import nodemailer, { Transporter } from 'nodemailer';
import { addressOf } from '../identity';
import { AddressGuard, BlockedAddressError } from '../net/address-guard';
import { ChannelVendor, SendRequest, SendResult, VendorConfig, contentOf, permanent, retryable, sent, stringField } from '../vendor.port';
import { senderOf } from './http-email-vendors';
import { smtpSocket } from './smtp-socket';

/** Connections per SMTP server: servers commonly allow a client 10 to 20 at once. */
export const SMTP_CONNECTIONS = 16;

/** Network failures nodemailer reports by code: the server may answer next time. */
const TRANSIENT_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET']);

/**
 * SMTP through nodemailer, one pooled transport (SMTP_CONNECTIONS connections) per
 * vendor configuration version and server address. The host is resolved and checked against the outbound address rule
 * before every send, and the transport connects to that checked address (TLS still
 * verifies the host name), so SMTP cannot reach a private address the rule refuses.
 * The Message-ID is derived from the delivery, so a receiving system that dedupes by
 * it sees one message even if a lost outcome made us repeat it.
 */
export class SmtpVendor implements ChannelVendor {
  readonly channel = 'email' as const;
  readonly vendor = 'smtp';
  readonly dedupesByKey = false;
  private readonly transports = new Map<string, Transporter>();

  constructor(private readonly guard: AddressGuard) {}

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'email');
    const host = stringField(request.config.credentials, 'host');
    try {
      const address = await this.guard.addressOf(host);
      const info = (await this.transport(request.config, host, address).sendMail({
        from: senderOf(content, request.config),
        to: addressOf(request.identity),
        subject: content.subject,
        html: content.html,
        text: content.text,
        replyTo: content.replyTo,
        messageId: `<${request.idempotencyKey}@herald>`,
        attachments: content.attachments?.map((attachment) => ({ filename: attachment.filename, contentType: attachment.contentType, content: attachment.content })),
      })) as { messageId?: string };
      return sent(info.messageId);
    } catch (error) {
      return smtpFailure(error);
    }
  }

  /** Closes pooled connections (on shutdown). */
  close(): void {
    for (const transport of this.transports.values()) transport.close();
    this.transports.clear();
  }

  private transport(config: VendorConfig, host: string, address: string): Transporter {
    const key = `${config.id}:${config.version}:${address}`;
    const existing = this.transports.get(key);
    if (existing) return existing;
    // A new version or address replaces the old transport: its credentials or host may have changed.
    for (const [oldKey, transport] of this.transports) {
      if (oldKey.startsWith(`${config.id}:`)) {
        transport.close();
        this.transports.delete(oldKey);
      }
    }
    const credentials = config.credentials;
    const transport = nodemailer.createTransport({
      // Concurrent sends spread over a pool of connections, one message at a time on each
      // (nodemailer pipelines a message's RCPT commands where the server offers PIPELINING); a connection is
      // renewed after `maxMessages`, not after nodemailer's default of 100, each renewal
      // being a TCP connect, EHLO and AUTH.
      pool: true,
      maxConnections: SMTP_CONNECTIONS,
      maxMessages: 1_000,
      host: address,
      // Nagle off: see smtpSocket. The connection is to the checked address; TLS (`secure`) is layered on it by nodemailer.
      getSocket: smtpSocket(address, Number(credentials.port), 10_000),
      // Certificates name the host, not the address it resolved to.
      ...(isIP(host) === 0 ? { tls: { servername: host } } : {}),
      port: Number(credentials.port),
      secure: credentials.secure === true,
      auth: { user: stringField(credentials, 'username'), pass: stringField(credentials, 'password') },
      connectionTimeout: 10_000,
      socketTimeout: 30_000,
    });
    this.transports.set(key, transport);
    return transport;
  }
}

function smtpFailure(error: unknown): SendResult {
  // Configuration, not the message: retried, so it goes out once HERALD_OUTBOUND_ALLOW is fixed.
  if (error instanceof BlockedAddressError) return retryable(`smtp: ${error.message}`);
  const details = error as { code?: string; responseCode?: number; response?: string; message?: string };
  // Only the server's reply or the error code: nodemailer messages never carry the password, but keep it short anyway.
  const reason = `smtp: ${details.response ?? details.message ?? String(error)}`.slice(0, 300);
  if (typeof details.responseCode === 'number') return details.responseCode >= 400 && details.responseCode < 500 ? retryable(reason) : permanent(reason);
  if (details.code && TRANSIENT_CODES.has(details.code)) return retryable(reason);
  if (details.code === 'EAUTH' || details.code === 'EENVELOPE' || details.code === 'EMESSAGE') return permanent(reason);
  return retryable(reason);
}

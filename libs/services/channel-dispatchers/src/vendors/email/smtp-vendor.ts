import nodemailer, { Transporter } from 'nodemailer';
import { addressOf } from '../identity';
import { ChannelVendor, SendRequest, SendResult, VendorConfig, contentOf, permanent, retryable, sent, stringField } from '../vendor.port';
import { senderOf } from './http-email-vendors';

/** Network failures nodemailer reports by code: the server may answer next time. */
const TRANSIENT_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET']);

/**
 * SMTP through nodemailer, one pooled transport per vendor configuration version. The
 * Message-ID is derived from the delivery, so a receiving system that dedupes by it
 * sees one message even if a lost outcome made us repeat it.
 */
export class SmtpVendor implements ChannelVendor {
  readonly channel = 'email' as const;
  readonly vendor = 'smtp';
  readonly dedupesByKey = false;
  private readonly transports = new Map<string, Transporter>();

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'email');
    try {
      const info = (await this.transport(request.config).sendMail({
        from: senderOf(content, request.config),
        to: addressOf(request.identity),
        subject: content.subject,
        html: content.html,
        text: content.text,
        replyTo: content.replyTo,
        messageId: `<${request.idempotencyKey}@herald>`,
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

  private transport(config: VendorConfig): Transporter {
    const key = `${config.id}:${config.version}`;
    const existing = this.transports.get(key);
    if (existing) return existing;
    // A new version replaces the old transport: its credentials or host may have changed.
    for (const [oldKey, transport] of this.transports) {
      if (oldKey.startsWith(`${config.id}:`)) {
        transport.close();
        this.transports.delete(oldKey);
      }
    }
    const credentials = config.credentials;
    const transport = nodemailer.createTransport({
      pool: true,
      host: stringField(credentials, 'host'),
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
  const details = error as { code?: string; responseCode?: number; response?: string; message?: string };
  // Only the server's reply or the error code: nodemailer messages never carry the password, but keep it short anyway.
  const reason = `smtp: ${details.response ?? details.message ?? String(error)}`.slice(0, 300);
  if (typeof details.responseCode === 'number') return details.responseCode >= 400 && details.responseCode < 500 ? retryable(reason) : permanent(reason);
  if (details.code && TRANSIENT_CODES.has(details.code)) return retryable(reason);
  if (details.code === 'EAUTH' || details.code === 'EENVELOPE' || details.code === 'EMESSAGE') return permanent(reason);
  return retryable(reason);
}

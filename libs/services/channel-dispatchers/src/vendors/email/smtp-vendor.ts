import { isIP } from 'node:net';
import { addressOf } from '../identity';
import { AddressGuard, BlockedAddressError } from '../net/address-guard';
import { ChannelVendor, SendRequest, SendResult, VendorConfig, contentOf, permanent, retryable, sent, stringField } from '../vendor.port';
import { senderOf } from './http-email-vendors';
import { composeMessage } from './mime-message';
import { SmtpPool } from './smtp-client';

/** Connections per SMTP server: servers commonly allow a client 10 to 20 at once. */
export const SMTP_CONNECTIONS = 16;

/** Failures of the connection, not of the message: the server may answer next time. */
const TRANSIENT_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * SMTP through Herald's own client (smtp-client.ts: pipelined where the server offers
 * PIPELINING), one pool of SMTP_CONNECTIONS connections per vendor configuration version
 * and server address; the message is composed into one buffer (mime-message.ts). The
 * host is resolved and checked against the outbound address rule before every send, and
 * the pool connects to that checked address (TLS still verifies the host name), so SMTP
 * cannot reach a private address the rule refuses. The Message-ID is derived from the
 * delivery, so a receiving system that dedupes by it sees one message even if a lost
 * outcome made us repeat it.
 */
export class SmtpVendor implements ChannelVendor {
  readonly channel = 'email' as const;
  readonly vendor = 'smtp';
  readonly dedupesByKey = false;
  private readonly pools = new Map<string, SmtpPool>();

  constructor(private readonly guard: AddressGuard) {}

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'email');
    const host = stringField(request.config.credentials, 'host');
    try {
      const address = await this.guard.addressOf(host);
      const pool = this.pool(request.config, host, address);
      const messageId = `<${request.idempotencyKey}@herald>`;
      const message = await composeMessage({
        from: senderOf(content, request.config),
        to: addressOf(request.identity),
        subject: content.subject,
        html: content.html,
        text: content.text,
        replyTo: content.replyTo,
        messageId,
        attachments: content.attachments,
        headers: content.headers,
      });
      const reply = await pool.send(message.envelope, message.bytes);
      return sent(messageId, reply.response);
    } catch (error) {
      return smtpFailure(error);
    }
  }

  /** Closes pooled connections (on shutdown). */
  close(): void {
    for (const pool of this.pools.values()) pool.close();
    this.pools.clear();
  }

  private pool(config: VendorConfig, host: string, address: string): SmtpPool {
    const key = `${config.id}:${config.version}:${address}`;
    const existing = this.pools.get(key);
    if (existing) return existing;
    // A new version or address replaces the old pool: its credentials or host may have changed.
    for (const [oldKey, pool] of this.pools) {
      if (oldKey.startsWith(`${config.id}:`)) {
        pool.close();
        this.pools.delete(oldKey);
      }
    }
    const credentials = config.credentials;
    const pool = new SmtpPool({
      address,
      port: Number(credentials.port),
      secure: credentials.secure === true,
      // Certificates name the host, not the address it resolved to.
      tls: isIP(host) === 0 ? { servername: host } : {},
      auth: { user: stringField(credentials, 'username'), pass: stringField(credentials, 'password') },
      // Concurrent sends spread over the pool, one transaction at a time on each connection;
      // a connection is renewed after 1,000 messages (a TCP connect, EHLO and AUTH each).
      maxConnections: SMTP_CONNECTIONS,
      maxMessagesPerConnection: 1_000,
      connectionTimeoutMs: 10_000,
      replyTimeoutMs: 30_000,
    });
    this.pools.set(key, pool);
    return pool;
  }
}

function smtpFailure(error: unknown): SendResult {
  // Configuration, not the message: retried, so it goes out once HERALD_OUTBOUND_ALLOW is fixed.
  if (error instanceof BlockedAddressError) return retryable(`smtp: ${error.message}`);
  const details = error as { code?: string; responseCode?: number; response?: string; message?: string };
  // Only the server's reply or the error's message: neither carries the password, but keep it short anyway.
  const reason = `smtp: ${details.response ?? details.message ?? String(error)}`.slice(0, 300);
  if (typeof details.responseCode === 'number') return details.responseCode >= 400 && details.responseCode < 500 ? retryable(reason) : permanent(reason);
  if (details.code && TRANSIENT_CODES.has(details.code)) return retryable(reason);
  if (details.code === 'EAUTH' || details.code === 'EENVELOPE' || details.code === 'EMESSAGE') return permanent(reason);
  return retryable(reason);
}

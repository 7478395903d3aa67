import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { MessageStatusEvent } from '@herald/contracts';

/** A webhook the receiver took: verified with the endpoint's secret by the `standardwebhooks` package. */
export interface ReceivedWebhook {
  readonly webhookId: string;
  readonly event: MessageStatusEvent;
  /** The request as it came: the body's text and the headers. */
  readonly raw: { readonly body: string; readonly headers: Record<string, string> };
}

/**
 * A client's webhook endpoint for tests and benches: every request is verified as a
 * Standard Webhooks receiver does (`new Webhook(secret).verify(body, headers)`); a
 * request that fails verification is answered 401 and counted in `forgeries`. `answer`
 * decides the status of verified requests (503 to play a receiver that is down).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  readonly forgeries: string[] = [];
  /** Verified requests answered with something else than a 2xx (a receiver that is down). */
  refused = 0;
  answer: (webhook: ReceivedWebhook) => number = () => 204;
  /** How long each answer takes (a slow receiver keeps sends in flight). */
  delayMs = 0;
  private verifier?: Webhook;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(port = 0): Promise<WebhookReceiver> {
    const holder: { receiver?: WebhookReceiver } = {};
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const status = holder.receiver?.take(Buffer.concat(chunks).toString('utf8'), request.headers) ?? 500;
        setTimeout(() => response.writeHead(status).end(), holder.receiver?.delayMs ?? 0);
      });
    });
    server.keepAliveTimeout = 1_000;
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const receiver = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`);
    holder.receiver = receiver;
    return receiver;
  }

  /** The endpoint's secret, as its create answer gave it. */
  verifyWith(secret: string): void {
    this.verifier = new Webhook(secret);
  }

  /** Distinct webhook ids received, in order of first arrival. */
  distinctIds(): string[] {
    return [...new Set(this.received.map((w) => w.webhookId))];
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private take(body: string, headers: Record<string, string | string[] | undefined>): number {
    const flat = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]));
    let event: MessageStatusEvent;
    try {
      if (!this.verifier) throw new Error('no secret to verify with yet');
      event = this.verifier.verify(body, flat) as MessageStatusEvent;
    } catch (error) {
      this.forgeries.push(error instanceof Error ? error.message : String(error));
      return 401;
    }
    const webhook = { webhookId: flat['webhook-id'], event, raw: { body, headers: flat } };
    const status = this.answer(webhook);
    if (status >= 200 && status < 300) this.received.push(webhook);
    else this.refused += 1;
    return status;
  }
}

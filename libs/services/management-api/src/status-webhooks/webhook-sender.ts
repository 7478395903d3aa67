import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { OutboundHttp, createOutboundHttp } from '@herald/outbound-http';
import { DueLoop, HERALD_CONFIG, HERALD_LOGGER, HeraldConfig, HeraldLogger } from '@herald/runtime';
import { STATUS_WEBHOOK_OPTIONS, StatusWebhookOptions } from './status-webhook-options';
import { AttemptResult, decideAttempt } from './webhook-attempt-decider';
import { AttemptRecord, ClaimedWebhook, WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookSecrets } from './webhook-secrets';

/** Longest error text kept per attempt in the log. */
const MAX_ERROR_CHARS = 500;

/**
 * Sends queued status webhooks: claims a round of due deliveries (the oldest open one of
 * each endpoint and message, so a message's events arrive in order), signs each in the
 * Standard Webhooks format (`webhook-id` the event id, the same on every retry and
 * replay, so a receiver dedupes), POSTs them concurrently through the guarded outbound
 * client, and records the round's outcomes and log in one statement. The queue is in
 * Postgres: a process killed mid-round leaves claims whose lease runs out, and whoever
 * claims next sends them again (at least once).
 */
@Injectable()
export class WebhookSender implements OnApplicationBootstrap, OnModuleDestroy {
  /** This process, as the owner of its claims; a restart is a new owner. */
  private readonly owner = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  private readonly loop: DueLoop;
  private readonly http: OutboundHttp;

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly secrets: WebhookSecrets,
    @Inject(STATUS_WEBHOOK_OPTIONS) private readonly options: StatusWebhookOptions,
    @Inject(HERALD_CONFIG) config: HeraldConfig,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {
    this.http = createOutboundHttp({ allow: config.outboundAllow, timeoutMs: options.requestTimeoutMs, maxRedirects: 0, userAgent: 'Herald-Webhooks' });
    this.loop = new DueLoop(() => this.round(), {
      longestSleepMs: options.pollIntervalMs,
      afterFailureMs: options.pollIntervalMs,
      onError: (error) => this.logger.warn('status webhook round failed; retrying', { component: 'webhook-sender', error: error instanceof Error ? error.message : String(error) }),
    });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
    this.http.close();
  }

  /** Deliveries were queued or replayed here: send them now rather than at the next poll. */
  wake(): void {
    this.loop.wakeIn(0);
  }

  /** One round; resolves with how long until the next delivery is due. */
  private async round(): Promise<number | undefined> {
    const claimed = await this.deliveries.claimDue(this.owner, this.options.batchSize, this.options.leaseMs);
    if (claimed.length > 0) {
      const records = await Promise.all(claimed.map((delivery) => this.attempt(delivery)));
      await this.deliveries.recordAttempts(this.owner, records);
      const dead = records.filter((r) => r.state === 'dead').length;
      if (dead > 0) this.logger.warn('status webhooks dead-lettered after their last attempt', { component: 'webhook-sender', dead });
      // A full round likely left more due; a partial one may have made a message's next event the head.
      return 0;
    }
    return this.deliveries.nextDueInMs();
  }

  private async attempt(delivery: ClaimedWebhook): Promise<AttemptRecord> {
    const startedAt = new Date();
    const result = await this.send(delivery, startedAt);
    const latencyMs = Date.now() - startedAt.getTime();
    const decision = decideAttempt(result, delivery.attempt, this.options, Math.random());
    return {
      id: delivery.id,
      attempt: delivery.attempt,
      state: decision.state,
      ...(decision.state === 'pending' ? { nextAttemptAt: new Date(Date.now() + decision.retryInMs) } : {}),
      startedAt,
      statusCode: result.statusCode ?? null,
      latencyMs,
      error: result.ok ? null : result.error.slice(0, MAX_ERROR_CHARS),
    };
  }

  private async send(delivery: ClaimedWebhook, at: Date): Promise<AttemptResult> {
    let signature: string;
    try {
      signature = new Webhook(this.secrets.open(delivery.endpointId, delivery.secretSealed)).sign(delivery.eventId, at, delivery.body);
    } catch (error) {
      return { ok: false, error: `cannot sign: ${error instanceof Error ? error.message : String(error)}` };
    }
    const result = await this.http.send({
      url: delivery.url,
      method: 'POST',
      headers: {
        'webhook-id': delivery.eventId,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body: { raw: delivery.body, contentType: 'application/json' },
    });
    if (result.ok) return { ok: true, statusCode: result.response.status };
    const { failure } = result;
    return failure.kind === 'http_status' ? { ok: false, statusCode: failure.status, error: `answered ${failure.status}` } : { ok: false, error: failure.message };
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { DeliveryStatus, deterministicUuid } from '@herald/contracts';
import { OutboxMessage } from '@herald/event-store';
import { CLOCK, Clock, HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { AttachmentLoader } from '../attachments/attachment-loader';
import { VendorReadModel } from '../read-models/vendor-read-model';
import { RenderedContent, TemplateEngine, renderContent } from '@herald/rendering';
import { BUILT_IN_INBOX } from '../vendors/inbox/herald-inbox-vendor';
import { VendorRegistry } from '../vendors/vendor-registry';
import { ChannelVendor, SendResult, VendorConfig, VendorConfigError, permanent, retryable } from '../vendors/vendor.port';
import { DISPATCH_OPTIONS, DispatchOptions, retryDelayMs } from './dispatch-options';
import { ClaimLeases } from './claim-leases';
import { ClaimedDelivery, DeliveryLedger, FinalState } from './delivery-ledger';
import { OutcomeFields, outcomeMessage } from './outcome-message';
import { RetryReports } from './retry-reports';

export const VENDOR_REGISTRY = Symbol('VENDOR_REGISTRY');

interface Route {
  readonly config: VendorConfig;
  readonly vendor: ChannelVendor;
}

type IdentityResult = { readonly ok: true; readonly vendor: string; readonly vendorMessageId?: string } | { readonly ok: false; readonly retryable: boolean; readonly reason: string };

/**
 * One attempt at a claimed delivery: render, then send to every destination identity
 * not sent yet, through the workspace's vendors of the channel by priority (the next
 * vendor when one fails), then either record the result with its outcome, or
 * schedule a retry when a failure may pass and attempts remain.
 */
@Injectable()
export class Dispatcher {
  private readonly templates = new TemplateEngine();

  constructor(
    private readonly ledger: DeliveryLedger,
    private readonly leases: ClaimLeases,
    private readonly vendorModel: VendorReadModel,
    private readonly attachments: AttachmentLoader,
    @Inject(VENDOR_REGISTRY) private readonly registry: VendorRegistry,
    @Inject(DISPATCH_OPTIONS) private readonly options: DispatchOptions,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    private readonly retryReports: RetryReports,
  ) {}

  /**
   * `abandoned`: the previous attempt's claim was found still open, its lease run out or
   * its owner gone, so it may have reached a vendor without recording it. Repeating it could send twice; it is
   * repeated only when every vendor of the route dedupes by the idempotency key.
   */
  attempt(delivery: ClaimedDelivery, abandoned = false): Promise<void> {
    return this.leases.hold(delivery.deliveryId, () => this.attemptHeld(delivery, abandoned));
  }

  private async attemptHeld(delivery: ClaimedDelivery, abandoned: boolean): Promise<void> {
    const { command } = delivery;
    const rendered = renderContent(this.templates, command.channel, command.template.content, command.render_data, { strict: command.template.strict === true });
    // Not retried: the same data renders the same way (a strict template's missing variables included).
    if (!rendered.ok) return this.fail(delivery, rendered.reason, false);
    if (rendered.missingVariables.length > 0) this.logger.warn('template variables missing from the data: they render empty', { delivery_id: delivery.deliveryId, missing: rendered.missingVariables.join(', ') });
    const routes = await this.routesOf(delivery);
    if (routes.length === 0) return this.fail(delivery, `no vendor is configured for the ${command.channel} channel`, false);
    if (abandoned && !routes.every((route) => route.vendor.dedupesByKey)) {
      return this.fail(delivery, 'outcome unknown: the dispatcher stopped between calling the vendor and recording the result; not repeated to avoid a duplicate', false);
    }
    const identities = command.destination.identities;
    if (identities.length === 0) return this.fail(delivery, 'the command has no destination identity', false);
    const content = await this.withAttachments(delivery, rendered.content);
    if (!content.ok) return this.fail(delivery, content.reason, false);

    const sent = new Set(delivery.sentIdentities);
    let lastSent: IdentityResult | undefined;
    const failures: Array<Extract<IdentityResult, { ok: false }>> = [];
    for (const [index, identity] of identities.entries()) {
      if (sent.has(index)) continue;
      const result = await this.sendToIdentity(delivery, content.content, routes, identity, index);
      if (result.ok) {
        if (!(await this.ledger.markIdentitySent(delivery.deliveryId, index))) return this.lostClaim(delivery);
        sent.add(index);
        lastSent = result;
      } else {
        failures.push(result);
      }
    }
    if (failures.length === 0) return this.succeed(delivery, lastSent);
    const reason = failures.map((failure) => failure.reason).join('; ');
    const canRetry = failures.some((failure) => failure.retryable);
    if (canRetry && delivery.attempts < this.options.maxAttempts) {
      const delayMs = retryDelayMs(this.options, delivery.attempts, Math.random());
      await this.retryReports.scheduled(delivery, delayMs, reason);
      this.logger.info('delivery retry scheduled', { delivery_id: delivery.deliveryId, attempt: delivery.attempts, retry_in_ms: delayMs, reason });
      if (!(await this.ledger.scheduleRetry(delivery.deliveryId, delayMs, reason))) this.lostClaim(delivery);
      return;
    }
    // Some identities got it: the message reached the recipient, so report it sent.
    if (sent.size > 0) return this.succeed(delivery, lastSent, reason);
    return this.fail(delivery, reason, canRetry);
  }

  /** E-mail carries the command's attachments, loaded once per attempt for every identity and vendor. */
  private async withAttachments(delivery: ClaimedDelivery, content: RenderedContent): Promise<{ ok: true; content: RenderedContent } | { ok: false; reason: string }> {
    if (content.channel !== 'email' || delivery.command.attachments.length === 0) return { ok: true, content };
    const loaded = await this.attachments.load(delivery.command.attachments);
    return loaded.ok ? { ok: true, content: { ...content, attachments: loaded.attachments } } : loaded;
  }

  private async sendToIdentity(delivery: ClaimedDelivery, content: RenderedContent, routes: readonly Route[], identity: unknown, index: number): Promise<IdentityResult> {
    const reasons: string[] = [];
    let anyRetryable = false;
    for (const route of routes) {
      const result = await this.sendThrough(route, delivery, content, identity, index);
      if (result.ok) return { ok: true, vendor: `${route.config.channel}/${route.config.vendor}`, vendorMessageId: result.vendorMessageId };
      anyRetryable ||= result.retryable;
      reasons.push(`${route.config.vendor}: ${result.reason}`);
      this.logger.warn('vendor failed', { delivery_id: delivery.deliveryId, vendor: route.config.vendor, retryable: result.retryable, reason: result.reason });
    }
    return { ok: false, retryable: anyRetryable, reason: reasons.join('; ') };
  }

  private async sendThrough(route: Route, delivery: ClaimedDelivery, content: RenderedContent, identity: unknown, index: number): Promise<SendResult> {
    try {
      return await route.vendor.send({
        deliveryId: delivery.deliveryId,
        workspaceId: delivery.workspaceId,
        recipientId: delivery.command.recipient.distinct_id,
        content,
        identity,
        config: route.config,
        idempotencyKey: deterministicUuid('delivery', delivery.deliveryId, String(index)),
      });
    } catch (error) {
      // A misconfigured vendor or an unusable identity will not improve; anything else (our database) may.
      const message = error instanceof Error ? error.message : String(error);
      return error instanceof VendorConfigError ? permanent(message) : retryable(message);
    }
  }

  private async routesOf(delivery: ClaimedDelivery): Promise<Route[]> {
    const { channel } = delivery.command;
    const configured = await this.vendorModel.vendorsOf(delivery.workspaceId, channel);
    const configs: readonly VendorConfig[] = configured.length === 0 && channel === 'inbox' ? [BUILT_IN_INBOX] : configured;
    return configs.flatMap((config) => {
      const vendor = this.registry.find(channel, config.vendor);
      if (!vendor) this.logger.warn('vendor not implemented; skipped', { channel, vendor: config.vendor });
      return vendor ? [{ config, vendor }] : [];
    });
  }

  private succeed(delivery: ClaimedDelivery, result: IdentityResult | undefined, partialFailure?: string): Promise<void> {
    const vendor = result?.ok ? result.vendor : undefined;
    const vendorMessageId = result?.ok ? result.vendorMessageId : undefined;
    // Storing in the inbox is delivery itself; a vendor's acceptance is only "sent by vendor".
    const status: DeliveryStatus = delivery.command.channel === 'inbox' ? 'delivered' : 'sent_by_vendor';
    const state: FinalState = { status: 'sent', vendor, vendorMessageId, error: partialFailure };
    return this.record(delivery, state, this.outcome(delivery, { status, vendor, vendor_message_id: vendorMessageId }));
  }

  private fail(delivery: ClaimedDelivery, reason: string, wasRetryable: boolean): Promise<void> {
    this.logger.warn('delivery failed', { delivery_id: delivery.deliveryId, attempts: delivery.attempts, reason });
    return this.record(delivery, { status: 'failed', error: reason }, this.outcome(delivery, { status: 'delivery_failure', error: { message: reason, retryable: wasRetryable } }));
  }

  private async record(delivery: ClaimedDelivery, state: FinalState, outcome: OutboxMessage): Promise<void> {
    if (!(await this.ledger.finish(delivery.deliveryId, state, outcome))) this.lostClaim(delivery);
  }

  /**
   * This process's lease ran out while it worked (a stall longer than the lease) and
   * another dispatcher took the claim over: that one records and reports the delivery.
   */
  private lostClaim(delivery: ClaimedDelivery): void {
    this.logger.warn('delivery claim taken over by another dispatcher; this attempt records nothing', { delivery_id: delivery.deliveryId, attempt: delivery.attempts });
  }

  /** The one final outcome of a delivery; its id derives from the delivery alone, so a republish is deduped. */
  private outcome(delivery: ClaimedDelivery, result: Omit<OutcomeFields, 'attempts'>): OutboxMessage {
    return outcomeMessage(delivery, { ...result, attempts: delivery.attempts }, this.clock.now());
  }
}

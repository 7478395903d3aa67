import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { Channel, DeliveryRequested, DeliveryWarning, deterministicUuid, storableText, suppressionAddress } from '@herald/contracts';
import { CLOCK, Clock, HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { AttachmentLoader } from '../attachments/attachment-loader';
import { EngagementTracking } from '../engagement/engagement-tracking';
import { WorkspaceVendors } from '../read-models/workspace-vendors';
import { RenderResult, RenderedContent, TemplateEngine, renderVariant, translationScope } from '@herald/rendering';
import { LiveTranslations } from '../read-models/live-translations';
import { Suppression, SuppressionList } from '../suppressions/suppression-list';
import { BUILT_IN_INBOX } from '../vendors/inbox/herald-inbox-vendor';
import { VendorRegistry } from '../vendors/vendor-registry';
import { ChannelVendor, SendResult, VendorConfig, VendorConfigError, permanent, retryable } from '../vendors/vendor.port';
import { DISPATCH_OPTIONS, DispatchOptions } from './dispatch-options';
import { ClaimLeases } from './claim-leases';
import { DeliveryDecision, DeliveryInput, DeliveryState, IdentityResult, VendorAnswer, decideDelivery, decideIdentity } from './delivery-decider';
import { DeliveryClaims } from './delivery-claims';
import { ClaimedDelivery, FinishRecord } from './delivery.repository';
import { DispatchMetrics } from './dispatch-metrics';
import { OutcomeFields, outcomeMessage } from './outcome-message';
import { renderWarnings } from './render-warnings';
import { VendorLimits } from './vendor-limits';
import { WriteBatcher } from './write-batcher';

export const VENDOR_REGISTRY = Symbol('VENDOR_REGISTRY');

interface Route {
  readonly config: VendorConfig;
  readonly vendor: ChannelVendor;
}

/** A command's attempt before any vendor call: its content rendered, its vendors by priority. */
export interface Preparation {
  readonly rendered: RenderResult;
  readonly routes: readonly Route[];
}

/**
 * One attempt at a claimed delivery, the adapter around `decideDelivery`: it renders,
 * sends to every destination identity not sent yet through the workspace's vendors of
 * the channel in the order `decideIdentity` gives (the next vendor when one fails), and
 * carries out what `decideDelivery` makes of it: record the result with its outcome, or schedule a retry. The
 * ledger writes of concurrent attempts (the start of their vendor calls, their records)
 * are coalesced into one statement each.
 */
@Injectable()
export class Dispatcher {
  private readonly templates = new TemplateEngine();
  private readonly vendorLimits: VendorLimits;
  private readonly starts: WriteBatcher<string, boolean>;
  private readonly finishes: WriteBatcher<FinishRecord, boolean>;

  constructor(
    private readonly ledger: DeliveryClaims,
    private readonly leases: ClaimLeases,
    private readonly vendorModel: WorkspaceVendors,
    private readonly translationModel: LiveTranslations,
    private readonly attachments: AttachmentLoader,
    @Inject(VENDOR_REGISTRY) private readonly registry: VendorRegistry,
    @Inject(DISPATCH_OPTIONS) private readonly options: DispatchOptions,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    private readonly metrics: DispatchMetrics,
    private readonly suppressions: SuppressionList,
    private readonly engagement: EngagementTracking,
  ) {
    this.vendorLimits = new VendorLimits(options.maxCallsPerVendor);
    this.starts = new WriteBatcher(async (ids) => {
      const held = await ledger.startAttempts(ids);
      return ids.map((id) => held.has(id));
    });
    this.finishes = new WriteBatcher((records) => ledger.finishAll(records));
  }

  /**
   * What an attempt of `command` needs before any vendor call, worked out from the
   * command alone (no side effect): its rendered content and its vendor routes. The host
   * prepares a command before claiming it, so that a ready one is claimed `sending`.
   */
  async prepare(workspaceId: string, command: DeliveryRequested): Promise<Preparation> {
    // `{{t "key"}}` reads the workspace's translations for the recipient's locale (fr-CA → fr → en).
    const translations = translationScope(await this.translationModel.translationsOf(workspaceId), command.recipient.locale ?? command.template.locale);
    // Email content may be MJML: compiled once per template version (cached), then rendered as HTML.
    const rendered = await renderVariant(this.templates, command.channel, command.template.content, command.render_data, { strict: command.template.strict === true, translations });
    if (rendered.ok && rendered.missingVariables.length > 0) {
      this.logger.warn('template variables or translation keys missing: variables render empty, keys as the key', {
        delivery_id: command.delivery_id,
        locale: command.recipient.locale,
        missing: rendered.missingVariables.join(', '),
      });
    }
    return { rendered, routes: await this.routesOf(workspaceId, command.channel) };
  }

  /**
   * Whether a new claim of this command can be written `sending`: it renders, has vendors
   * and identities, and nothing is left to do before its vendor calls. Attachments to
   * load keep it `queued` until they are (fetching them may take seconds, and a claim
   * whose owner dies while `queued` is attempted again as new, not left in doubt).
   */
  readyToSend(command: DeliveryRequested, preparation: Preparation): boolean {
    return preparation.rendered.ok && preparation.routes.length > 0 && command.destination.identities.length > 0 && command.attachments.length === 0;
  }

  /**
   * `abandoned`: the previous attempt's claim was found still `sending`, its lease run out
   * or its owner gone, so it may have reached a vendor without recording it. Repeating it
   * could send twice; it is repeated only when every vendor of the route dedupes by the
   * idempotency key. `preparation`: the command's, when the host prepared it already.
   */
  attempt(delivery: ClaimedDelivery, abandoned = delivery.abandoned, preparation?: Preparation): Promise<void> {
    return this.leases.hold(delivery.deliveryId, () => this.attemptHeld(delivery, abandoned, preparation));
  }

  /** What the decider makes of a redelivered command, given what the ledger found. */
  decideRedelivery(found: Extract<DeliveryInput, { type: 'command_redelivered' }>['found'], channel: string): DeliveryDecision {
    return decideDelivery({ type: 'command_redelivered', found }, { channel, attempts: 0, sentBefore: 0, policy: this.options }, this.clock.now());
  }

  private async attemptHeld(delivery: ClaimedDelivery, abandoned: boolean, prepared?: Preparation): Promise<void> {
    const { command } = delivery;
    const { rendered, routes } = prepared ?? (await this.prepare(delivery.workspaceId, command));
    // Not retried: the same data renders the same way (a strict template's missing variables included).
    if (!rendered.ok) return this.carryOut(delivery, { type: 'unsendable', reason: rendered.reason });
    // Logged at prepare; carried on the outcome too, so the message log shows them.
    const warnings = renderWarnings(rendered.missingVariables);
    if (routes.length === 0) return this.carryOut(delivery, { type: 'unsendable', reason: `no vendor is configured for the ${command.channel} channel` }, routes, warnings);
    if (abandoned && !routes.every((route) => route.vendor.dedupesByKey)) return this.carryOut(delivery, { type: 'abandoned_without_dedupe' }, routes, warnings);
    const identities = command.destination.identities;
    if (identities.length === 0) return this.carryOut(delivery, { type: 'unsendable', reason: 'the command has no destination identity' }, routes, warnings);
    const content = await this.withAttachments(delivery, rendered.content);
    if (!content.ok) return this.carryOut(delivery, { type: 'unsendable', reason: content.reason }, routes, warnings);

    // From here a vendor may be called: a claim whose owner dies now is in doubt. A claim written `sending` is so already.
    if (!delivery.started && !(await this.starts.run(delivery.deliveryId))) return this.lostClaim(delivery);
    const sent = new Set(delivery.sentIdentities);
    const pending = identities.map((_, index) => index).filter((index) => !sent.has(index));
    const results: IdentityResult[] = [];
    const suppressed = await this.suppressedIdentities(delivery, pending);
    for (const [position, index] of pending.entries()) {
      const suppression = suppressed.get(index);
      // Not sent, not retried: the list says the address bounced or complained (or an operator put it there).
      const result: IdentityResult = suppression
        ? { ok: false, retryable: false, reason: `suppressed: ${String(identities[index])} is on the workspace's suppression list (${suppression.reason}${suppression.detail ? `: ${suppression.detail}` : ''})` }
        : await this.sendToIdentity(delivery, content.content, routes, identities[index], index);
      results.push(result);
      // Narrows what a lost attempt (or a retry) leaves to send. When every identity went out, the record says so itself.
      const recordedWithResult = position === pending.length - 1 && results.every((each) => each.ok);
      if (result.ok && !recordedWithResult && !(await this.ledger.markIdentitySent(delivery.deliveryId, index))) return this.lostClaim(delivery);
    }
    return this.carryOut(delivery, { type: 'sends_completed', results, jitter: Math.random() }, routes, warnings);
  }

  /** The identities (by index) among `pending` whose address is on the workspace's suppression list for the channel. */
  private async suppressedIdentities(delivery: ClaimedDelivery, pending: readonly number[]): Promise<Map<number, Suppression>> {
    const channel = delivery.command.channel;
    const found = new Map<number, Suppression>();
    if (channel !== 'email' && channel !== 'sms' && channel !== 'whatsapp') return found;
    const addresses = new Map<number, string>();
    for (const index of pending) {
      const identity = delivery.command.destination.identities[index];
      if (typeof identity === 'string') addresses.set(index, suppressionAddress(channel, identity));
    }
    const listed = await this.suppressions.suppressedAmong(delivery.workspaceId, channel, [...addresses.values()]);
    for (const [index, address] of addresses) {
      const entry = listed.get(address);
      if (entry) found.set(index, entry);
    }
    return found;
  }

  private async carryOut(delivery: ClaimedDelivery, input: DeliveryInput, routes: readonly Route[] = [], warnings: readonly DeliveryWarning[] = []): Promise<void> {
    const withWarnings = (fields: OutcomeFields): OutcomeFields => (warnings.length === 0 ? fields : { ...fields, warnings });
    const state: DeliveryState = { channel: delivery.command.channel, attempts: delivery.attempts, sentBefore: delivery.sentIdentities.length, policy: this.options };
    const now = this.clock.now();
    const decision = decideDelivery(input, state, now);
    const channel = delivery.command.channel;
    const primaryVendor = routes[0] ? `${channel}/${routes[0].config.vendor}` : undefined;
    switch (decision.kind) {
      case 'record': {
        if (decision.final.status === 'failed') this.logger.warn('delivery failed', { delivery_id: delivery.deliveryId, attempts: delivery.attempts, reason: decision.final.error });
        const outcome = outcomeMessage(delivery, withWarnings(decision.outcome), now);
        if (!(await this.finishes.run({ deliveryId: delivery.deliveryId, state: decision.final, outcome }))) return this.lostClaim(delivery);
        this.metrics.outcome(channel, decision.final.vendor ?? primaryVendor, decision.outcome.status);
        return;
      }
      case 'retry': {
        await this.ledger.reportRetry(outcomeMessage(delivery, withWarnings(decision.report), now, 'retrying', String(delivery.attempts)));
        this.logger.info('delivery retry scheduled', { delivery_id: delivery.deliveryId, attempt: delivery.attempts, retry_in_ms: decision.delayMs, reason: decision.reason });
        if (!(await this.ledger.scheduleRetry(delivery.deliveryId, decision.delayMs, decision.reason))) return this.lostClaim(delivery);
        this.metrics.outcome(channel, primaryVendor, 'retrying');
        return;
      }
      case 'resume_abandoned':
      case 'acknowledge':
        throw new Error(`an attempt cannot decide ${decision.kind}`);
    }
  }

  /** E-mail carries the command's attachments, loaded once per attempt for every identity and vendor. */
  private async withAttachments(delivery: ClaimedDelivery, content: RenderedContent): Promise<{ ok: true; content: RenderedContent } | { ok: false; reason: string }> {
    if (content.channel !== 'email' || delivery.command.attachments.length === 0) return { ok: true, content };
    const loaded = await this.attachments.load(delivery.command.attachments);
    return loaded.ok ? { ok: true, content: { ...content, attachments: loaded.attachments } } : loaded;
  }

  /** Offers the identity to the route's vendors in the order `decideIdentity` gives, until it settles. */
  private async sendToIdentity(delivery: ClaimedDelivery, content: RenderedContent, routes: readonly Route[], identity: unknown, index: number): Promise<IdentityResult> {
    const route = routes.map((each) => each.config);
    const answers: VendorAnswer[] = [];
    for (let step = decideIdentity(route, answers); ; step = decideIdentity(route, answers)) {
      if (step.kind === 'settled') return step.result;
      const next = routes[step.route];
      const answer = await this.vendorLimits.run(next.config.id, () => this.sendThrough(next, delivery, content, identity, index));
      if (!answer.ok) this.logger.warn('vendor failed', { delivery_id: delivery.deliveryId, vendor: next.config.vendor, retryable: answer.retryable, reason: answer.reason });
      answers.push(answer);
    }
  }

  private async sendThrough(route: Route, delivery: ClaimedDelivery, content: RenderedContent, identity: unknown, index: number): Promise<SendResult> {
    const started = performance.now();
    const result = await this.callVendor(route, delivery, content, identity, index);
    const outcome = result.ok ? 'ok' : result.retryable ? 'retryable' : 'permanent';
    this.metrics.vendorCall(route.config.channel, `${route.config.channel}/${route.config.vendor}`, outcome, (performance.now() - started) / 1000);
    return result;
  }

  /** What the vendor answered, as text Postgres can store (its message id and failure reason are the vendor's bytes, see storableText). */
  private async callVendor(route: Route, delivery: ClaimedDelivery, content: RenderedContent, identity: unknown, index: number): Promise<SendResult> {
    const result = await this.sendToVendor(route, delivery, content, identity, index);
    if (!result.ok) return { ...result, reason: storableText(result.reason) };
    return result.vendorMessageId === undefined ? result : { ...result, vendorMessageId: storableText(result.vendorMessageId) };
  }

  private async sendToVendor(route: Route, delivery: ClaimedDelivery, content: RenderedContent, identity: unknown, index: number): Promise<SendResult> {
    try {
      return await route.vendor.send({
        deliveryId: delivery.deliveryId,
        workspaceId: delivery.workspaceId,
        recipientId: delivery.command.recipient.distinct_id,
        tenantId: delivery.command.tenant_id,
        // Per vendor: its configuration may turn tracking off.
        content: this.engagement.contentFor(delivery, content, route.config),
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

  private async routesOf(workspaceId: string, channel: Channel): Promise<Route[]> {
    const configured = await this.vendorModel.vendorsOf(workspaceId, channel);
    const configs: readonly VendorConfig[] = configured.length === 0 && channel === 'inbox' ? [BUILT_IN_INBOX] : configured;
    return configs.flatMap((config) => {
      const vendor = this.registry.find(channel, config.vendor);
      if (!vendor) this.logger.warn('vendor not implemented; skipped', { channel, vendor: config.vendor });
      return vendor ? [{ config, vendor }] : [];
    });
  }

  /**
   * This process's lease ran out while it worked (a stall longer than the lease) and
   * another dispatcher took the claim over: that one records and reports the delivery.
   */
  private lostClaim(delivery: ClaimedDelivery): void {
    this.logger.warn('delivery claim taken over by another dispatcher; this attempt records nothing', { delivery_id: delivery.deliveryId, attempt: delivery.attempts });
  }
}

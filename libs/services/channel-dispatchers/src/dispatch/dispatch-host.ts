import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { DISPATCH_OPTIONS, DispatchOptions } from './dispatch-options';
import { ClaimLeases } from './claim-leases';
import { DeliveryClaims } from './delivery-claims';
import { ClaimedDelivery, CommandToClaim } from './delivery.repository';
import { Dispatcher, Preparation } from './dispatcher';
import { RetryPoller } from './retry-poller';
import { WriteBatcher } from './write-batcher';

/**
 * Hosts dispatch for the delivery consumers: takes a batch of commands of one channel,
 * renders and routes each, claims them in the ledger (one statement for the commands
 * that arrive together) and returns once every claim is durable, leaving the attempts to
 * run concurrently, at most `maxInFlightPerChannel` of them per channel. A command ready
 * to send (rendered, routed, no attachments to load) is claimed `sending`: its claim is
 * also the start of its vendor calls, which follow it at once.
 *
 * Why returning before the attempt keeps at-least-once and exactly-once: the claim is
 * written before the command counts as consumed, and from then on the ledger, not the
 * partition, holds the delivery. The claim is a lease renewed while its attempt waits or
 * runs; if this process dies, a redelivered command (an offset not committed yet) or the
 * sweep (the lease ran out) takes the claim over. A claim still `queued` had no vendor
 * called, so it is attempted as new; one `sending` may have reached a vendor and is
 * repeated only where the vendor dedupes (as before). Order within a partition was never
 * a delivery guarantee (retries already reorder); the ledger serialises each delivery.
 *
 * The bus hands it a partition's batch (`DeliveryConsumers`), claimed in one statement;
 * the handler resolves after the claims, not after the vendor calls, so batches pipeline.
 */
@Injectable()
export class DispatchHost implements OnModuleDestroy {
  private readonly claims: WriteBatcher<CommandToClaim, ClaimedDelivery | null>;
  private readonly inFlight = new Map<string, Set<Promise<void>>>();
  /** Slots taken per channel: attempts in flight, and admissions between their slot and their claim. */
  private readonly slotsTaken = new Map<string, number>();
  private readonly slotWaiters = new Map<string, Array<() => void>>();
  private stopping = false;

  constructor(
    private readonly ledger: DeliveryClaims,
    private readonly dispatcher: Dispatcher,
    private readonly leases: ClaimLeases,
    private readonly poller: RetryPoller,
    @Inject(DISPATCH_OPTIONS) private readonly options: DispatchOptions,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {
    this.claims = new WriteBatcher((commands) => ledger.claimAll(commands));
  }

  /**
   * Admits the commands of one channel: resolves once each is claimed and its attempt
   * started (or, for a redelivered one, resolved). Rejects when the ledger cannot be
   * written: then the bus redelivers, and claims made meanwhile are found again.
   */
  async handleCommands(channel: string, commands: readonly CommandToClaim[]): Promise<void> {
    await Promise.all(commands.map((command) => this.admit(channel, command)));
  }

  /** Stopping: attempts admitted from now on run before their command counts as consumed; those in flight finish. */
  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    for (const running of this.inFlight.values()) await Promise.all(running);
  }

  private async admit(channel: string, item: CommandToClaim): Promise<void> {
    await this.takeSlot(channel);
    let started = false;
    try {
      // Rendered and routed first, so that a command ready to send is claimed `sending`: one write, not a claim then a start.
      const preparation = await this.dispatcher.prepare(item.workspaceId, item.command);
      const delivery = await this.claimOrTakeOver(channel, { ...item, sending: this.dispatcher.readyToSend(item.command, preparation) });
      if (delivery === null) return;
      started = true;
      return this.start(channel, delivery, preparation);
    } finally {
      if (!started) this.releaseSlot(channel);
    }
  }

  /** The claim to attempt now, or null when the command was claimed before and needs nothing from here. */
  private async claimOrTakeOver(channel: string, item: CommandToClaim): Promise<ClaimedDelivery | null> {
    const claimed = await this.claims.run(item);
    if (claimed !== null) return claimed;
    // Claimed before. Still in flight under a lease that ran out or an owner that is gone
    // (this is the redelivery of a command a dispatcher died on): resolve it now.
    const found = await this.ledger.takeOver(item.command.delivery_id);
    const decision = this.dispatcher.decideRedelivery(found.kind === 'held' ? { kind: 'held', leaseLeftMs: found.leaseLeftMs } : { kind: found.kind }, channel);
    if (decision.kind === 'resume_abandoned' && found.kind === 'taken') {
      this.logger.info('delivery claim of a dead dispatcher resumed on redelivery', { delivery_id: item.command.delivery_id });
      return found.delivery;
    }
    // Sent, failed, scheduled for retry, or in flight under a live owner. Never sent twice;
    // should that owner die, the sweep resolves the claim once its lease runs out.
    if (decision.kind === 'acknowledge' && decision.recheckInMs !== undefined) this.poller.wakeIn(decision.recheckInMs);
    this.logger.info('delivery command already claimed; acknowledged without sending', { delivery_id: item.command.delivery_id });
    return null;
  }

  /** Runs the attempt in the background, its lease renewed from now; inline once stopping. */
  private start(channel: string, delivery: ClaimedDelivery, preparation: Preparation): Promise<void> {
    const attempt = this.leases.hold(delivery.deliveryId, () => this.dispatcher.attempt(delivery, delivery.abandoned, preparation));
    if (this.stopping) return attempt.finally(() => this.releaseSlot(channel));
    const running = this.inFlight.get(channel) ?? new Set<Promise<void>>();
    this.inFlight.set(channel, running);
    const tracked: Promise<void> = attempt
      // Its lease is no longer renewed: the sweep takes the claim over once it runs out.
      .catch((error: unknown) => this.logger.warn('delivery attempt failed; its claim is swept when the lease runs out', { delivery_id: delivery.deliveryId, error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        running.delete(tracked);
        this.releaseSlot(channel);
      });
    running.add(tracked);
    return Promise.resolve();
  }

  private async takeSlot(channel: string): Promise<void> {
    if ((this.slotsTaken.get(channel) ?? 0) >= this.options.maxInFlightPerChannel) {
      const waiters = this.slotWaiters.get(channel) ?? [];
      this.slotWaiters.set(channel, waiters);
      // A releasing attempt hands its slot over as it is.
      return new Promise<void>((resolve) => waiters.push(resolve));
    }
    this.slotsTaken.set(channel, (this.slotsTaken.get(channel) ?? 0) + 1);
  }

  private releaseSlot(channel: string): void {
    const next = this.slotWaiters.get(channel)?.shift();
    if (next) next();
    else this.slotsTaken.set(channel, (this.slotsTaken.get(channel) ?? 1) - 1);
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { Channel, DeliveryRequested, SuppressionChanged, suppressionChangedMessage } from '@herald/contracts';
import { OutboxMessage, writeOutbox } from '@herald/event-store';
import { DISPATCH_OUTBOX } from '../dispatch/dispatch-outbox.repository';
import { LedgeredDelivery, LedgeredDeliveryEntity } from '../dispatch/delivery.entity';
import { SuppressionList } from '../suppressions/suppression-list';
import { SuppressionRepository } from '../suppressions/suppression.repository';

/** A delivery a vendor's callback speaks of, found by the id the vendor gave the message. */
export interface SentDelivery {
  readonly deliveryId: string;
  readonly workspaceId: string;
  readonly messageKey: string;
  readonly command: DeliveryRequested;
  readonly vendor: string | null;
  readonly vendorMessageId: string;
}

/** A delivery an open pixel or tracked link names, whatever its status. */
export interface TrackedDelivery extends Omit<SentDelivery, 'vendorMessageId'> {
  readonly status: string;
  readonly vendorMessageId: string | null;
}

/** What one callback event leads to: an outcome to publish, and the suppression of its address when it was a hard bounce or a complaint. */
export interface CallbackRecord {
  readonly deliveryId: string;
  /** The status the outcome reports: each is recorded once per delivery. */
  readonly status: string;
  readonly outcome: OutboxMessage;
  readonly suppression?: SuppressionChanged;
}

/**
 * The persistence of vendor status callbacks and engagement (open pixels, tracked links):
 * finds the deliveries a callback or a tracking token names, and
 * writes what it said in one transaction: the outcomes (into dispatch's outbox, for the
 * engine and whoever reads `notify.delivery.outcome.v1`) and the suppressions (the list
 * itself, so the next send skips the address at once, and its announcement, so
 * management-api's list shows it). Each status is recorded once per delivery
 * (`deliveries.callback_statuses`, under the row's lock), so a vendor's retry of a
 * callback, hours later, writes nothing, and does not put back an address an operator
 * took off the list since.
 */
@Injectable()
export class VendorCallbackRepository {
  constructor(
    @InjectDataSource('dispatch') private readonly db: DataSource,
    private readonly suppressedAddresses: SuppressionRepository,
    private readonly suppressionList: SuppressionList,
  ) {}

  /** The sent deliveries of the workspace's channel whose vendor message id is one of `ids`. */
  async sentDeliveries(workspaceId: string, channel: Channel, ids: readonly string[]): Promise<SentDelivery[]> {
    if (ids.length === 0) return [];
    const rows = await this.deliveries().find({
      select: { deliveryId: true, workspaceId: true, messageKey: true, command: true, vendor: true, vendorMessageId: true },
      where: { vendorMessageId: In([...new Set(ids)]), workspaceId, channel, status: 'sent' },
    });
    return rows.map((row) => ({
      deliveryId: row.deliveryId,
      workspaceId: row.workspaceId,
      messageKey: row.messageKey,
      command: row.command,
      vendor: row.vendor,
      // Found by it, so never null.
      vendorMessageId: row.vendorMessageId ?? '',
    }));
  }

  /** The delivery a tracking token names (by its id), or undefined when the ledger has none. */
  async trackedDelivery(deliveryId: string): Promise<TrackedDelivery | undefined> {
    const row = await this.deliveries().findOne({
      select: { deliveryId: true, workspaceId: true, messageKey: true, command: true, status: true, vendor: true, vendorMessageId: true },
      where: { deliveryId },
    });
    if (!row) return undefined;
    return {
      deliveryId: row.deliveryId,
      workspaceId: row.workspaceId,
      messageKey: row.messageKey,
      command: row.command,
      status: row.status,
      vendor: row.vendor,
      vendorMessageId: row.vendorMessageId,
    };
  }

  /** Writes the records of one callback not recorded before; answers how many were new. */
  async record(records: readonly CallbackRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    const written = await this.db.transaction(async (tx) => {
      const deliveryIds = [...new Set(records.map((record) => record.deliveryId))];
      // Locked in id order, so two callbacks naming the same deliveries never deadlock.
      const rows = await this.deliveries(tx).find({
        select: { deliveryId: true, callbackStatuses: true },
        where: { deliveryId: In(deliveryIds) },
        order: { deliveryId: 'ASC' },
        lock: { mode: 'pessimistic_write' },
      });
      const recorded = new Map(rows.map((row) => [row.deliveryId, new Set(row.callbackStatuses)]));
      const fresh = records.filter((record) => {
        const statuses = recorded.get(record.deliveryId);
        if (!statuses || statuses.has(record.status)) return false;
        statuses.add(record.status);
        return true;
      });
      if (fresh.length === 0) return { fresh: 0, suppressions: [] };
      const changed = [...new Set(fresh.map((record) => record.deliveryId))];
      // Hand-written: one UPDATE gives each delivery its own statuses (the query builder would take one statement per row).
      await tx.query(
        `UPDATE dispatch.deliveries d SET callback_statuses = u.statuses FROM jsonb_to_recordset($1::jsonb) AS u(delivery_id text, statuses text[]) WHERE d.delivery_id = u.delivery_id`,
        [JSON.stringify(changed.map((id) => ({ delivery_id: id, statuses: [...(recorded.get(id) ?? [])] })))],
      );
      const suppressions = fresh.flatMap((record) => (record.suppression ? [record.suppression] : []));
      for (const suppression of suppressions) await this.suppressedAddresses.apply(suppression, tx);
      await writeOutbox(tx, DISPATCH_OUTBOX, [...fresh.map((record) => record.outcome), ...suppressions.map(suppressionChangedMessage)]);
      return { fresh: fresh.length, suppressions };
    });
    // Committed: this replica's next attempt reads the list anew (the others hear the announcement).
    for (const suppression of written.suppressions) this.suppressionList.forget(suppression);
    return written.fresh;
  }

  private deliveries(manager: EntityManager = this.db.manager): Repository<LedgeredDelivery> {
    return manager.getRepository(LedgeredDeliveryEntity);
  }
}


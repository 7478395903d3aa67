import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DeliveryRequested } from '@herald/contracts';
import { OutboxMessage, eventStoreTables, writeOutbox } from '@herald/event-store';

export const DISPATCH_OUTBOX = eventStoreTables('dispatch').outbox;

/** A delivery this instance holds the claim of, ready for an attempt. */
export interface ClaimedDelivery {
  readonly deliveryId: string;
  readonly workspaceId: string;
  /** The command's Kafka key (`workspace:recipient`): outcomes go out with the same key. */
  readonly messageKey: string;
  readonly command: DeliveryRequested;
  /** This attempt's number, from 1. */
  readonly attempts: number;
  readonly sentIdentities: readonly number[];
}

interface DeliveryRow {
  delivery_id: string;
  workspace_id: string;
  message_key: string;
  command: DeliveryRequested;
  attempts: number;
  sent_identities: number[];
}

export type FinalState = { readonly status: 'sent' | 'failed'; readonly vendor?: string; readonly vendorMessageId?: string; readonly error?: string };

const RETURNING = 'RETURNING delivery_id, workspace_id, message_key, command, attempts, sent_identities';

/**
 * `dispatch.deliveries`: one row per delivery_id, inserted before any vendor is
 * called. The insert is the claim that makes sending at most once: a redelivered
 * command finds the row and sends nothing. Attempts after the first (retries, and
 * claims abandoned by a dead attempt) are claimed by the retry poller with
 * `FOR UPDATE SKIP LOCKED`, so two replicas never run the same attempt.
 */
@Injectable()
export class DeliveryLedger {
  constructor(@InjectDataSource('dispatch') private readonly db: DataSource) {}

  /** Claims a new delivery; null when the delivery_id was claimed before (a redelivery). */
  async claim(command: DeliveryRequested, workspaceId: string, messageKey: string): Promise<ClaimedDelivery | null> {
    const rows = (await this.db.query(
      `INSERT INTO dispatch.deliveries (delivery_id, workspace_id, channel, message_key, command, status, attempts, claimed_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, 'sending', 1, now())
       ON CONFLICT (delivery_id) DO NOTHING ${RETURNING}`,
      [command.delivery_id, workspaceId, command.channel, messageKey, JSON.stringify(command)],
    )) as DeliveryRow[];
    return rows[0] ? claimedOf(rows[0]) : null;
  }

  /** Claims retries that are due, counting the attempt. */
  async claimDue(limit: number): Promise<ClaimedDelivery[]> {
    return this.claimWhere(`status = 'retry_scheduled' AND next_attempt_at <= now()`, 'attempts + 1', [limit]);
  }

  /** Claims deliveries whose attempt died between its claim and its result (see the Dispatcher). */
  async claimAbandoned(abandonedAfterMs: number, limit: number): Promise<ClaimedDelivery[]> {
    return this.claimWhere(`status = 'sending' AND claimed_at < now() - make_interval(secs => $2::double precision / 1000)`, 'attempts', [
      limit,
      abandonedAfterMs,
    ]);
  }

  /**
   * Narrows what a lost attempt leaves in doubt to the identity in flight, and renews
   * the claim, so the abandonment lease only has to outlast one identity's vendor calls.
   */
  async markIdentitySent(deliveryId: string, index: number): Promise<void> {
    await this.db.query(
      `UPDATE dispatch.deliveries SET sent_identities = sent_identities || $2::jsonb, claimed_at = now(), updated_at = now() WHERE delivery_id = $1`,
      [
        deliveryId,
        JSON.stringify([index]),
      ],
    );
  }

  async scheduleRetry(deliveryId: string, delayMs: number, error: string): Promise<void> {
    await this.db.query(
      `UPDATE dispatch.deliveries SET status = 'retry_scheduled', next_attempt_at = now() + make_interval(secs => $2::double precision / 1000),
              last_error = $3, updated_at = now() WHERE delivery_id = $1`,
      [deliveryId, delayMs, error],
    );
  }

  /** Records the final state and the outcome to publish, in one transaction. */
  async finish(deliveryId: string, state: FinalState, outcome: OutboxMessage): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `UPDATE dispatch.deliveries SET status = $2, vendor = $3, vendor_message_id = $4, last_error = $5, next_attempt_at = NULL, updated_at = now()
          WHERE delivery_id = $1`,
        [deliveryId, state.status, state.vendor ?? null, state.vendorMessageId ?? null, state.error ?? null],
      );
      await writeOutbox(tx, DISPATCH_OUTBOX, [outcome]);
    });
  }

  private async claimWhere(condition: string, attempts: string, params: unknown[]): Promise<ClaimedDelivery[]> {
    const result = (await this.db.query(
      `UPDATE dispatch.deliveries SET status = 'sending', claimed_at = now(), attempts = ${attempts}, updated_at = now()
        WHERE delivery_id IN (SELECT delivery_id FROM dispatch.deliveries WHERE ${condition} ORDER BY claimed_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        ${RETURNING}`,
      params,
    )) as [DeliveryRow[], number];
    return result[0].map(claimedOf);
  }
}

function claimedOf(row: DeliveryRow): ClaimedDelivery {
  return {
    deliveryId: row.delivery_id,
    workspaceId: row.workspace_id,
    messageKey: row.message_key,
    command: row.command,
    attempts: row.attempts,
    sentIdentities: row.sent_identities,
  };
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DeliveryRequested } from '@herald/contracts';
import { returningRows } from '@herald/database';
import { OutboxMessage } from '@herald/event-store';
import { DISPATCH_OUTBOX } from './dispatch-outbox.repository';
import { ownerIsAliveSql } from './dispatch-owner-lock.repository';
import { LedgeredDeliveryEntity } from './delivery.entity';

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
  /**
   * The claim was taken over while `sending`: its previous owner may have called a vendor
   * without recording it. False for a new claim, a due retry and a `queued` claim.
   */
  readonly abandoned: boolean;
  /**
   * The claim was written `sending` (its attempt was ready to call vendors when it was
   * claimed), so the attempt goes to its vendors without marking its start.
   */
  readonly started: boolean;
}

/** A delivery command to claim, as it came off its topic. */
export interface CommandToClaim {
  readonly command: DeliveryRequested;
  readonly workspaceId: string;
  readonly messageKey: string;
  /**
   * Claim it `sending` rather than `queued`: its attempt is rendered and routed and calls
   * its vendors right after the claim, so the claim is also the start of the vendor calls
   * (one write instead of two). A claim whose owner dies from here on is in doubt.
   */
  readonly sending?: boolean;
}

/** One attempt's final state and the outcome to publish with it. */
export interface FinishRecord {
  readonly deliveryId: string;
  readonly state: FinalState;
  readonly outcome: OutboxMessage;
}

interface DeliveryRow {
  delivery_id: string;
  workspace_id: string;
  message_key: string;
  command: DeliveryRequested;
  attempts: number;
  sent_identities: number[];
  status: string;
}

export type FinalState = { readonly status: 'sent' | 'failed'; readonly vendor?: string; readonly vendorMessageId?: string; readonly error?: string };

const RETURNING = 'RETURNING delivery_id, workspace_id, message_key, command, attempts, sent_identities, status';
/** A claim held by an owner: admitted (`queued`, no vendor called yet) or `sending`. */
const HELD = `status IN ('queued', 'sending')`;
/** SQL: the end of a lease that starts now and lasts the milliseconds of parameter `param`. */
const leaseEnd = (param: string): string => `now() + make_interval(secs => ${param}::double precision / 1000)`;

/** Who claims or writes: the owner (a dispatcher process, see DispatchOwner) and how long a lease it takes or renews runs. */
export interface ClaimHolder {
  readonly owner: string;
  readonly leaseMs: number;
}

/**
 * `dispatch.deliveries`, the delivery ledger: one row per delivery_id, inserted before any
 * vendor is called. The insert is the claim that makes sending at most once: a
 * redelivered command finds the row and sends nothing. A claim is a lease: it names its
 * owner and runs out at `lease_expires_at` unless the owner renews it. Attempts after the
 * first (retries, and claims whose owner died) are claimed with `FOR UPDATE SKIP LOCKED`,
 * so two replicas never run the same attempt, and every write of an attempt's progress
 * checks that its owner still holds the claim.
 *
 * Hand-written, every statement but the operator's retry (cold): the claims and records
 * of every delivery, each one statement per batch as the flow bench measured them
 * (jsonb documents unpacked in SQL, leases computed by the database's clock, the final
 * state and its outcome written together); DeliveryClaims calls it with this process's
 * owner and lease.
 */
@Injectable()
export class DeliveryRepository {
  constructor(@InjectDataSource('dispatch') private readonly db: DataSource) {}

  /**
   * In one cheap statement (each part reads the head of a partial index): how long until
   * the earliest retry is due or lease runs out, 0 if one already is; null when none is
   * scheduled or held.
   */
  async nextDueInMs(): Promise<number | null> {
    // Hand-written: least() of three partial-index heads in one round trip, read by the retry poller after every round.
    const [row] = returningRows<{ due_in_ms: number | string | null }>(await this.db.query(
      // Not greatest(0, ...) in SQL: it ignores a NULL, and "nothing due" would read as "due now".
      `SELECT (extract(epoch FROM least(
                (SELECT min(next_attempt_at) FROM dispatch.deliveries WHERE status = 'retry_scheduled'),
                (SELECT min(lease_expires_at) FROM dispatch.deliveries WHERE status = 'queued'),
                (SELECT min(lease_expires_at) FROM dispatch.deliveries WHERE status = 'sending')) - now()) * 1000)::float8 AS due_in_ms`,
    ));
    return row?.due_in_ms === null || row?.due_in_ms === undefined ? null : Math.max(0, Number(row.due_in_ms));
  }

  /**
   * Claims new deliveries in one statement under the holder's lease, each `queued` (no
   * vendor called yet) or, when asked, already `sending`; one entry per command, null
   * where its delivery_id was claimed before. Only the ids come back: everything else of
   * a new claim is known here (the command is not read back).
   */
  async claimAll(commands: readonly CommandToClaim[], holder: ClaimHolder): Promise<Array<ClaimedDelivery | null>> {
    if (commands.length === 0) return [];
    // Hand-written: the batch's claims in one INSERT (a jsonb document unpacked by jsonb_to_recordset), ON CONFLICT telling redeliveries apart.
    const rows = returningRows<{ delivery_id: string }>(await this.db.query(
      `INSERT INTO dispatch.deliveries (delivery_id, workspace_id, channel, message_key, command, status, attempts, claimed_at, owner, lease_expires_at)
       SELECT c.command->>'delivery_id', c.workspace_id::uuid, c.command->>'channel', c.message_key, c.command, c.status, 1, now(), $2, ${leaseEnd('$3')}
         FROM jsonb_to_recordset($1::jsonb) AS c(command jsonb, workspace_id text, message_key text, status text)
       ON CONFLICT (delivery_id) DO NOTHING RETURNING delivery_id`,
      [
        JSON.stringify(
          commands.map((item) => ({ command: item.command, workspace_id: item.workspaceId, message_key: item.messageKey, status: item.sending === true ? 'sending' : 'queued' })),
        ),
        holder.owner,
        holder.leaseMs,
      ],
    ));
    const claimed = new Set(rows.map((row) => row.delivery_id));
    // A command twice in one batch: the first claims it, the second is its redelivery.
    return commands.map((item) => {
      if (!claimed.delete(item.command.delivery_id)) return null;
      return {
        deliveryId: item.command.delivery_id,
        workspaceId: item.workspaceId,
        messageKey: item.messageKey,
        command: item.command,
        attempts: 1,
        sentIdentities: [],
        abandoned: false,
        started: item.sending === true,
      };
    });
  }

  /**
   * Marks claims `sending` just before their vendors are called, in one statement: from
   * here on a claim whose owner dies may have reached a vendor. Resolves with the ids
   * the holder still held.
   */
  async startAttempts(deliveryIds: readonly string[], holder: ClaimHolder): Promise<Set<string>> {
    if (deliveryIds.length === 0) return new Set();
    // Hand-written: the starts of concurrent attempts coalesced into one UPDATE, each checked against its owner.
    const rows = returningRows<{ delivery_id: string }>(await this.db.query(
      `UPDATE dispatch.deliveries SET status = 'sending', lease_expires_at = ${leaseEnd('$3')}, updated_at = now()
        WHERE delivery_id = ANY($1::text[]) AND owner = $2 AND ${HELD} RETURNING delivery_id`,
      [deliveryIds, holder.owner, holder.leaseMs],
    ));
    return new Set(rows.map((row) => row.delivery_id));
  }

  /**
   * Takes over a claim still in flight under another owner whose lease ran out or who is
   * gone (its owner lock is not held); null when there is none such. A claim without an
   * owner predates leases, and its process may still run it (a rolling upgrade): only
   * its lease decides.
   */
  async takeOver(deliveryId: string, holder: ClaimHolder): Promise<ClaimedDelivery | null> {
    // Hand-written: the owner's liveness is read from pg_locks in the same statement that takes the claim.
    const [taken] = returningRows<DeliveryRow>(await this.db.query(
      `UPDATE dispatch.deliveries SET owner = $2, lease_expires_at = ${leaseEnd('$3')}, claimed_at = now(), updated_at = now()
        WHERE delivery_id = $1 AND ${HELD} AND owner IS DISTINCT FROM $2
          AND (lease_expires_at <= now() OR (owner IS NOT NULL AND NOT ${ownerIsAliveSql('owner')}))
        ${RETURNING}`,
      [deliveryId, holder.owner, holder.leaseMs],
    ));
    return taken ? claimedOf(taken) : null;
  }

  /** How long the lease of a claim in flight under an owner other than `owner` runs yet (0 once run out); null when there is none such. */
  async leaseLeftMs(deliveryId: string, owner: string): Promise<number | null> {
    // Hand-written: the lease left by the database's clock, the one the leases are written by.
    const [held] = returningRows<{ lease_left_ms: number }>(await this.db.query(
      `SELECT greatest(0, extract(epoch FROM lease_expires_at - now()) * 1000)::float8 AS lease_left_ms FROM dispatch.deliveries
        WHERE delivery_id = $1 AND ${HELD} AND owner IS DISTINCT FROM $2`,
      [deliveryId, owner],
    ));
    return held ? Number(held.lease_left_ms) : null;
  }

  /** Claims retries that are due, oldest first, counting the attempt. */
  async claimDue(limit: number, holder: ClaimHolder): Promise<ClaimedDelivery[]> {
    return this.claimWhere(`status = 'retry_scheduled' AND next_attempt_at <= now()`, 'next_attempt_at', 'attempts + 1', limit, holder);
  }

  /**
   * Claims deliveries whose lease ran out: their owner died between its claim and its
   * record, and their command will not come back (it was committed, or the command's
   * partition moved on). Indexed on the lease, oldest first.
   */
  async claimExpired(limit: number, holder: ClaimHolder): Promise<ClaimedDelivery[]> {
    return this.claimWhere(`${HELD} AND lease_expires_at <= now()`, 'lease_expires_at', 'attempts', limit, holder);
  }

  /**
   * Renews the leases of the holder's claims in flight, in one statement. Resolves with
   * how many it renewed (fewer than asked: some were taken over).
   */
  async renewLeases(deliveryIds: readonly string[], holder: ClaimHolder): Promise<number> {
    if (deliveryIds.length === 0) return 0;
    // Hand-written: every claim in flight renewed in one UPDATE, each checked against its owner.
    const renewed = returningRows<{ delivery_id: string }>(await this.db.query(
      `UPDATE dispatch.deliveries SET lease_expires_at = ${leaseEnd('$3')}
        WHERE delivery_id = ANY($1::text[]) AND owner = $2 AND ${HELD} RETURNING delivery_id`,
      [deliveryIds, holder.owner, holder.leaseMs],
    ));
    return renewed.length;
  }

  /**
   * Narrows what a lost attempt leaves in doubt to the identity in flight, and renews
   * the lease. False when the holder no longer holds the claim.
   */
  async markIdentitySent(deliveryId: string, index: number, holder: ClaimHolder): Promise<boolean> {
    // Hand-written: appends to the jsonb list and renews the lease in one UPDATE, checked against its owner.
    const rows = returningRows<{ delivery_id: string }>(await this.db.query(
      `UPDATE dispatch.deliveries SET sent_identities = sent_identities || $2::jsonb, claimed_at = now(), lease_expires_at = ${leaseEnd('$4')}, updated_at = now()
        WHERE delivery_id = $1 AND owner = $3 AND status = 'sending' RETURNING delivery_id`,
      [deliveryId, JSON.stringify([index]), holder.owner, holder.leaseMs],
    ));
    return rows.length > 0;
  }

  /**
   * An operator's retry of a delivery that failed for good: schedules the workspace's
   * `failed` row again, due now, with no owner. False when there is no such row.
   */
  async retryFailed(workspaceId: string, deliveryId: string): Promise<boolean> {
    const result = await this.db
      .createQueryBuilder()
      .update(LedgeredDeliveryEntity)
      .set({ status: 'retry_scheduled', nextAttemptAt: () => 'now()', owner: null, leaseExpiresAt: null, updatedAt: () => 'now()' })
      .where('delivery_id = :deliveryId AND workspace_id = :workspaceId AND status = :failed', { deliveryId, workspaceId, failed: 'failed' })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** The status of the workspace's delivery; null when it has none by that id. */
  async statusOf(workspaceId: string, deliveryId: string): Promise<string | null> {
    const found = await this.db.getRepository(LedgeredDeliveryEntity).findOne({ select: { status: true }, where: { deliveryId, workspaceId } });
    return found?.status ?? null;
  }

  /** Schedules the next attempt `delayMs` from now. False when `owner` no longer holds the claim (nothing changed). */
  async scheduleRetry(deliveryId: string, delayMs: number, error: string, owner: string): Promise<boolean> {
    // Hand-written: the next attempt's time by the database's clock, checked against its owner, in one UPDATE.
    const rows = returningRows<{ delivery_id: string }>(await this.db.query(
      `UPDATE dispatch.deliveries SET status = 'retry_scheduled', next_attempt_at = now() + make_interval(secs => $2::double precision / 1000),
              lease_expires_at = NULL, last_error = $3, updated_at = now()
        WHERE delivery_id = $1 AND owner = $4 AND status = 'sending' RETURNING delivery_id`,
      [deliveryId, delayMs, error, owner],
    ));
    return rows.length > 0;
  }

  /**
   * Records final states and their outcomes in one statement (the final states, and the
   * outcomes of the claims `owner` still held into the outbox: one round trip, atomic as
   * any statement); one entry per record, false where `owner` no longer held the claim
   * (its outcome is not written).
   */
  async finishAll(records: readonly FinishRecord[], owner: string): Promise<boolean[]> {
    if (records.length === 0) return [];
    // One JSON document rather than a `text[]` per column: the outcome (a whole message) is
    // not escaped by the driver and unescaped by Postgres again (see writeOutbox).
    const document = JSON.stringify(
      records.map(({ deliveryId, state, outcome }) => ({
        delivery_id: deliveryId,
        status: state.status,
        vendor: state.vendor ?? null,
        vendor_message_id: state.vendorMessageId ?? null,
        last_error: state.error ?? null,
        message_id: outcome.messageId,
        topic: outcome.topic,
        key: outcome.key,
        value: outcome.value,
        headers: outcome.headers ?? {},
      })),
    );
    // Hand-written: the final states and the outcomes of the claims still held, written by one statement (data-modifying CTEs).
    const rows = returningRows<{ delivery_id: string }>(await this.db.query(
      `WITH f AS (
         SELECT r->>'delivery_id' AS delivery_id, r->>'status' AS status, r->>'vendor' AS vendor, r->>'vendor_message_id' AS vendor_message_id,
                r->>'last_error' AS last_error, r->>'message_id' AS message_id, r->>'topic' AS topic, r->>'key' AS key, r->>'value' AS value,
                r->'headers' AS headers, ord
           FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS r(r, ord)
       ), finished AS (
         UPDATE dispatch.deliveries d SET status = f.status, vendor = f.vendor, vendor_message_id = f.vendor_message_id, last_error = f.last_error,
                next_attempt_at = NULL, lease_expires_at = NULL, updated_at = now()
           FROM f
          WHERE d.delivery_id = f.delivery_id AND d.owner = $2 AND d.${HELD} RETURNING d.delivery_id
       ), outcomes AS (
         INSERT INTO ${DISPATCH_OUTBOX} (message_id, topic, key, value, headers)
         SELECT f.message_id, f.topic, f.key, f.value, f.headers FROM f JOIN finished USING (delivery_id) ORDER BY f.ord
       )
       SELECT delivery_id FROM finished`,
      [document, owner],
    ));
    const finished = new Set(rows.map((row) => row.delivery_id));
    return records.map((record) => finished.has(record.deliveryId));
  }

  private async claimWhere(condition: string, order: string, attempts: string, limit: number, holder: ClaimHolder): Promise<ClaimedDelivery[]> {
    // Hand-written: picks and claims a batch in one UPDATE, FOR UPDATE SKIP LOCKED so replicas never claim the same attempt.
    const rows = returningRows<DeliveryRow>(await this.db.query(
      // A claim taken over while `sending` stays so (it may have reached a vendor); any other is `queued` until its attempt starts.
      `UPDATE dispatch.deliveries SET status = CASE WHEN status = 'sending' THEN 'sending' ELSE 'queued' END, claimed_at = now(), attempts = ${attempts}, owner = $2, lease_expires_at = ${leaseEnd('$3')}, updated_at = now()
        WHERE delivery_id IN (SELECT delivery_id FROM dispatch.deliveries WHERE ${condition} ORDER BY ${order} LIMIT $1 FOR UPDATE SKIP LOCKED)
        ${RETURNING}`,
      [limit, holder.owner, holder.leaseMs],
    ));
    return rows.map(claimedOf);
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
    abandoned: row.status === 'sending',
    started: false,
  };
}

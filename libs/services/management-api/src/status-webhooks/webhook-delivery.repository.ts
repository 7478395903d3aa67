import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, In, Repository } from 'typeorm';
import { MESSAGE_STATUS_TYPE, MESSAGE_STATUS_VERSION, MessageStatusEvent, TOPICS, envelopeOf, outboxMessageOf } from '@herald/contracts';
import { OutboxMessage, writeOutbox } from '@herald/event-store';
import { returningRows } from '@herald/database';
import { OffsetPage } from '../http/offset-page';
import { MANAGEMENT_OUTBOX } from '../management-events/management-events';

export type WebhookDeliveryState = 'pending' | 'sending' | 'delivered' | 'dead';

/** One status event queued for one endpoint (a replay is a delivery of its own). */
export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  /** The message (its delivery id): deliveries of one endpoint and message are sent in order. */
  orderingKey: string;
  replayOf: string | null;
  state: WebhookDeliveryState;
  attempts: number;
  nextAttemptAt: Date;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

/** One HTTP attempt of a delivery, as the log shows it. */
export interface WebhookAttempt {
  id: string;
  webhookDeliveryId: string;
  attempt: number;
  startedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export const WebhookDeliveryEntity = new EntitySchema<WebhookDelivery>({
  name: 'WebhookDelivery',
  schema: 'management',
  tableName: 'webhook_deliveries',
  columns: {
    // bigserial: read as a string, so no id loses precision.
    id: { type: 'bigint', primary: true, generated: 'increment' },
    endpointId: { name: 'endpoint_id', type: 'uuid' },
    eventId: { name: 'event_id', type: 'uuid' },
    orderingKey: { name: 'ordering_key', type: 'text' },
    replayOf: { name: 'replay_of', type: 'bigint', nullable: true },
    state: { type: 'text' },
    attempts: { type: 'integer' },
    nextAttemptAt: { name: 'next_attempt_at', type: 'timestamptz' },
    lastStatusCode: { name: 'last_status_code', type: 'integer', nullable: true },
    lastError: { name: 'last_error', type: 'text', nullable: true },
    createdAt: { name: 'created_at', type: 'timestamptz', createDate: true },
    finishedAt: { name: 'finished_at', type: 'timestamptz', nullable: true },
  },
});

export const WebhookAttemptEntity = new EntitySchema<WebhookAttempt>({
  name: 'WebhookAttempt',
  schema: 'management',
  tableName: 'webhook_attempts',
  columns: {
    id: { type: 'bigint', primary: true, generated: 'increment' },
    webhookDeliveryId: { name: 'webhook_delivery_id', type: 'bigint' },
    attempt: { type: 'integer' },
    startedAt: { name: 'started_at', type: 'timestamptz' },
    statusCode: { name: 'status_code', type: 'integer', nullable: true },
    latencyMs: { name: 'latency_ms', type: 'integer' },
    error: { type: 'text', nullable: true },
  },
});

/** A status event as the consumer hands it over: the event, its workspace and the outcome's Kafka key. */
export interface StatusEventToRecord {
  readonly event: MessageStatusEvent;
  readonly workspaceId: string;
  readonly key: string;
}

/** A delivery this process claimed, with what sending it needs. */
export interface ClaimedWebhook {
  readonly id: string;
  readonly endpointId: string;
  readonly eventId: string;
  /** This attempt's number, from 1. */
  readonly attempt: number;
  readonly url: string;
  readonly secretSealed: Buffer;
  /** The event as it is signed and sent. */
  readonly body: string;
}

/** What an attempt recorded: its outcome for the log and the delivery's next state. */
export interface AttemptRecord {
  readonly id: string;
  readonly attempt: number;
  readonly state: Exclude<WebhookDeliveryState, 'sending'>;
  /** For `pending`: when the next attempt is due. */
  readonly nextAttemptAt?: Date;
  readonly startedAt: Date;
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
}

interface ClaimedRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  url: string;
  secret_sealed: Buffer;
  body: string;
}

/** Deliveries a range replay may queue at once: larger ranges are replayed in parts. */
export const MAX_RANGE_REPLAY = 10_000;

/**
 * SQL: delivery `c` is the oldest open one of its endpoint and message, so sending it
 * keeps their order (a dead-lettered or delivered one no longer holds the rest back).
 */
const HEAD_OF_ITS_MESSAGE = `NOT EXISTS (SELECT 1 FROM management.webhook_deliveries o
   WHERE o.endpoint_id = c.endpoint_id AND o.ordering_key = c.ordering_key AND o.id < c.id AND o.state IN ('pending', 'sending'))`;

/**
 * The status events (each recorded once), their announcement on `notify.status.v1`, and
 * the queue of webhook deliveries with the log of their attempts: a Postgres-backed
 * queue, so nothing queued is lost when the process dies.
 */
@Injectable()
export class WebhookDeliveryRepository {
  constructor(@InjectDataSource('management') private readonly db: DataSource) {}

  /**
   * Records the events not recorded yet (an outcome redelivered or republished maps to
   * the same event id), announces each on `notify.status.v1` and queues it for every
   * enabled endpoint of its workspace whose event types and filters it matches, in
   * arrival order, all in one transaction. Answers how many events were new.
   */
  async recordStatusEvents(events: readonly StatusEventToRecord[]): Promise<{ recorded: number; queued: number }> {
    if (events.length === 0) return { recorded: 0, queued: 0 };
    const input = JSON.stringify(
      events.map(({ event, workspaceId }, ord) => ({
        ord,
        event_id: event.event_id,
        workspace_id: workspaceId,
        delivery_id: event.delivery_id,
        status: event.status,
        channel: event.channel,
        workflow: event.workflow_name ?? null,
        category: event.category ?? null,
        payload: JSON.stringify(event),
        occurred_at: event.timestamp,
      })),
    );
    return this.db.transaction(async (tx) => {
      // Hand-written: one statement records the new events and queues their deliveries.
      const rows = returningRows<{ event_id: string; queued: string }>(
        await tx.query(
          `WITH recorded AS (
             INSERT INTO management.status_events (event_id, workspace_id, delivery_id, status, channel, workflow, category, payload, occurred_at)
             SELECT event_id, workspace_id, delivery_id, status, channel, workflow, category, payload, occurred_at
               FROM jsonb_to_recordset($1::jsonb) AS input(ord int, event_id uuid, workspace_id uuid, delivery_id text, status text,
                                                           channel text, workflow text, category text, payload text, occurred_at timestamptz)
              ORDER BY ord
             ON CONFLICT (event_id) DO NOTHING
             RETURNING seq, event_id, workspace_id, delivery_id, status, channel, workflow, category),
           queued AS (
             INSERT INTO management.webhook_deliveries (endpoint_id, event_id, ordering_key)
             SELECT e.id, r.event_id, r.delivery_id
               FROM recorded r JOIN management.webhook_endpoints e ON e.workspace_id = r.workspace_id AND e.enabled
              WHERE r.status = ANY(e.event_types)
                AND (cardinality(e.workflows) = 0 OR r.workflow = ANY(e.workflows))
                AND (cardinality(e.channels) = 0 OR r.channel = ANY(e.channels))
                AND (cardinality(e.categories) = 0 OR r.category = ANY(e.categories))
              ORDER BY r.seq, e.id
             RETURNING 1)
           SELECT r.event_id, (SELECT count(*) FROM queued) AS queued FROM recorded r`,
          [input],
        ),
      );
      const fresh = new Set(rows.map((row) => row.event_id));
      await writeOutbox(
        tx,
        MANAGEMENT_OUTBOX,
        events.filter(({ event }) => fresh.has(event.event_id)).map((recorded) => statusMessage(recorded)),
      );
      return { recorded: rows.length, queued: Number(rows[0]?.queued ?? 0) };
    });
  }

  /**
   * Claims up to `limit` due deliveries for `owner` for `leaseMs`: pending ones whose
   * time has come and claims whose lease ran out (their process died mid-send), each
   * only when it is the oldest open delivery of its endpoint and message, of enabled
   * endpoints. Replicas skip each other's rows. Each claim counts as an attempt.
   */
  async claimDue(owner: string, limit: number, leaseMs: number): Promise<ClaimedWebhook[]> {
    // Hand-written: one statement picks the heads, takes them and joins what a send needs.
    const rows = returningRows<ClaimedRow>(
      await this.db.query(
        `UPDATE management.webhook_deliveries d
            SET state = 'sending', owner = $1, lease_expires_at = now() + make_interval(secs => $3::double precision / 1000), attempts = d.attempts + 1
           FROM management.status_events s, management.webhook_endpoints e
          WHERE d.id IN (
                  SELECT c.id FROM management.webhook_deliveries c
                    JOIN management.webhook_endpoints ce ON ce.id = c.endpoint_id AND ce.enabled
                   WHERE ((c.state = 'pending' AND c.next_attempt_at <= now()) OR (c.state = 'sending' AND c.lease_expires_at <= now()))
                     AND ${HEAD_OF_ITS_MESSAGE}
                   ORDER BY c.id
                   LIMIT $2
                   FOR UPDATE OF c SKIP LOCKED)
            AND s.event_id = d.event_id AND e.id = d.endpoint_id
        RETURNING d.id, d.endpoint_id, d.event_id, d.attempts, e.url, e.secret_sealed, s.payload AS body`,
        [owner, limit, leaseMs],
      ),
    );
    return rows.map((row) => ({
      id: String(row.id),
      endpointId: row.endpoint_id,
      eventId: row.event_id,
      attempt: row.attempts,
      url: row.url,
      secretSealed: row.secret_sealed,
      body: row.body,
    }));
  }

  /**
   * Records a round's attempts in one statement: each delivery's new state and an entry
   * in the log. A claim `owner` no longer holds (its lease ran out and another process
   * took it) records nothing: the other process's attempt is the one that counts.
   */
  async recordAttempts(owner: string, records: readonly AttemptRecord[]): Promise<void> {
    if (records.length === 0) return;
    const input = JSON.stringify(
      records.map((r) => ({
        id: r.id,
        attempt: r.attempt,
        state: r.state,
        next_attempt_at: r.nextAttemptAt?.toISOString() ?? null,
        started_at: r.startedAt.toISOString(),
        status_code: r.statusCode,
        latency_ms: Math.round(r.latencyMs),
        error: r.error,
      })),
    );
    // Hand-written: the states and the log of a whole round in one round trip.
    await this.db.query(
      `WITH r AS (
         SELECT id, attempt, state, next_attempt_at, started_at, status_code, latency_ms, error
           FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, attempt int, state text, next_attempt_at timestamptz,
                                                   started_at timestamptz, status_code int, latency_ms int, error text)),
       updated AS (
         UPDATE management.webhook_deliveries d
            SET state = r.state, next_attempt_at = COALESCE(r.next_attempt_at, d.next_attempt_at), owner = NULL, lease_expires_at = NULL,
                last_status_code = r.status_code, last_error = r.error,
                finished_at = CASE WHEN r.state IN ('delivered', 'dead') THEN now() END
           FROM r
          WHERE d.id = r.id AND d.owner = $2 AND d.state = 'sending'
         RETURNING d.id)
       INSERT INTO management.webhook_attempts (webhook_delivery_id, attempt, started_at, status_code, latency_ms, error)
       SELECT r.id, r.attempt, r.started_at, r.status_code, r.latency_ms, r.error FROM r JOIN updated u ON u.id = r.id`,
      [input, owner],
    );
  }

  /**
   * Milliseconds until the earliest delivery a claim could take (a head whose retry is
   * due, or a lease that runs out), 0 when one is due now, undefined when none waits.
   */
  async nextDueInMs(): Promise<number | undefined> {
    // Clamped here, not with SQL's GREATEST: GREATEST(0, NULL) is 0, and an empty queue
    // would read as due now, so the sender would poll without pause.
    const [row] = returningRows<{ due_in_ms: number | null }>(
      await this.db.query(
        `SELECT (extract(epoch FROM (LEAST(
                  (SELECT min(c.next_attempt_at) FROM management.webhook_deliveries c
                     JOIN management.webhook_endpoints ce ON ce.id = c.endpoint_id AND ce.enabled
                    WHERE c.state = 'pending' AND ${HEAD_OF_ITS_MESSAGE}),
                  (SELECT min(lease_expires_at) FROM management.webhook_deliveries WHERE state = 'sending')) - now())) * 1000)::float8 AS due_in_ms`,
      ),
    );
    return row?.due_in_ms === null || row?.due_in_ms === undefined ? undefined : Math.max(0, Number(row.due_in_ms));
  }

  /** A page of an endpoint's deliveries, newest first, each with its attempts, and how many match. */
  async listDeliveries(
    endpointId: string,
    page: OffsetPage,
    filter: { readonly state?: WebhookDeliveryState },
  ): Promise<{ count: number; deliveries: Array<WebhookDelivery & { attempts_log: WebhookAttempt[]; event: MessageStatusEvent }> }> {
    const [deliveries, count] = await this.deliveries().findAndCount({
      where: { endpointId, ...(filter.state ? { state: filter.state } : {}) },
      order: { id: 'DESC' },
      take: page.limit,
      skip: page.offset,
    });
    const ids = deliveries.map((d) => d.id);
    const attempts = ids.length === 0 ? [] : await this.attempts().find({ where: { webhookDeliveryId: In(ids) }, order: { attempt: 'ASC', id: 'ASC' } });
    const events = await this.eventPayloads(deliveries.map((d) => d.eventId));
    return {
      count,
      deliveries: deliveries.map((d) => ({
        ...d,
        attempts_log: attempts.filter((a) => a.webhookDeliveryId === d.id),
        event: events.get(d.eventId) as MessageStatusEvent,
      })),
    };
  }

  /** Queues the delivery's event again for its endpoint, after what is queued; null when the endpoint has no such delivery. */
  async replayOne(endpointId: string, deliveryId: string): Promise<WebhookDelivery | null> {
    const rows = returningRows<{ id: string }>(
      await this.db.query(
        `INSERT INTO management.webhook_deliveries (endpoint_id, event_id, ordering_key, replay_of)
         SELECT endpoint_id, event_id, ordering_key, id FROM management.webhook_deliveries WHERE id = $1 AND endpoint_id = $2
         RETURNING id`,
        [deliveryId, endpointId],
      ),
    );
    return rows.length === 0 ? null : this.deliveries().findOneBy({ id: String(rows[0].id) });
  }

  /** How many of the endpoint's deliveries (replays not counted) were queued in [since, until). */
  countInRange(endpointId: string, since: Date, until: Date): Promise<number> {
    return this.deliveries()
      .createQueryBuilder('d')
      .where('d.endpointId = :endpointId AND d.replayOf IS NULL AND d.createdAt >= :since AND d.createdAt < :until', { endpointId, since, until })
      .getCount();
  }

  /** Queues again every event first queued for the endpoint in [since, until), in their order; answers how many. */
  async replayRange(endpointId: string, since: Date, until: Date): Promise<number> {
    const rows = returningRows<{ id: string }>(
      await this.db.query(
        `INSERT INTO management.webhook_deliveries (endpoint_id, event_id, ordering_key, replay_of)
         SELECT endpoint_id, event_id, ordering_key, id FROM management.webhook_deliveries
          WHERE endpoint_id = $1 AND replay_of IS NULL AND created_at >= $2 AND created_at < $3
          ORDER BY id
         RETURNING id`,
        [endpointId, since, until],
      ),
    );
    return rows.length;
  }

  private async eventPayloads(eventIds: readonly string[]): Promise<Map<string, MessageStatusEvent>> {
    if (eventIds.length === 0) return new Map();
    const rows = returningRows<{ event_id: string; payload: string }>(
      await this.db.query(`SELECT event_id, payload FROM management.status_events WHERE event_id = ANY($1::uuid[])`, [[...new Set(eventIds)]]),
    );
    return new Map(rows.map((row) => [row.event_id, JSON.parse(row.payload) as MessageStatusEvent]));
  }

  private deliveries(manager: EntityManager = this.db.manager): Repository<WebhookDelivery> {
    return manager.getRepository(WebhookDeliveryEntity);
  }

  private attempts(manager: EntityManager = this.db.manager): Repository<WebhookAttempt> {
    return manager.getRepository(WebhookAttemptEntity);
  }
}

/** The event on `notify.status.v1`, keyed like its outcome; its message id is the event's. */
function statusMessage({ event, workspaceId, key }: StatusEventToRecord): OutboxMessage {
  return outboxMessageOf(TOPICS.messageStatus.name, key, envelopeOf(MESSAGE_STATUS_TYPE, MESSAGE_STATUS_VERSION, event.event_id, workspaceId, new Date(event.timestamp), event));
}

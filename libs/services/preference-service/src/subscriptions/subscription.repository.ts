import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, Repository } from 'typeorm';
import { AudienceSubject } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { returningRows } from '@herald/database';
import { AuthenticatedWorkspace, CLOCK, Clock } from '@herald/runtime';
import { CursorMeta, CursorQuery, readCursorPage } from '../http/cursor-page';
import { sqlCursorRows } from '../persistence/cursor-rows.repository';
import { AUDIENCE_OUTBOX, subscriptionMessages } from '../outbox/audience-events';
import { JsonObject, applyUpsert } from '../profiles/profile-document';
import { ProfileRepository } from '../profiles/profile.repository';
import { subjectColumns, subjectFromColumns, subjectNotFound } from '../profiles/subject';
import { SubscribeRequest } from './subscription-request';

type ObjectRef = { readonly object_type: string; readonly id: string };

/** A subscription of a user or object (the subscriber) to an object, as stored. */
export interface StoredSubscription {
  workspaceId: string;
  objectType: string;
  objectId: string;
  subscriberType: 'user' | 'object';
  /** '' for users. */
  subscriberObjectType: string;
  subscriberId: string;
  /** The page cursor: an identity that only grows. */
  id: string;
  /** The relation's JSON object (`object`, which TypeORM's insert types take, rather than JsonObject). */
  properties: object;
  createdAt: Date;
  updatedAt: Date;
}

/** `audience.object_subscriptions` (created by the migrations, never by TypeORM). */
export const SubscriptionEntity = new EntitySchema<StoredSubscription>({
  name: 'Subscription',
  schema: 'audience',
  tableName: 'object_subscriptions',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    objectType: { name: 'object_type', type: 'text', primary: true },
    objectId: { name: 'object_id', type: 'text', primary: true },
    subscriberType: { name: 'subscriber_type', type: 'text', primary: true },
    subscriberObjectType: { name: 'subscriber_object_type', type: 'text', primary: true },
    subscriberId: { name: 'subscriber_id', type: 'text', primary: true },
    // GENERATED ALWAYS AS IDENTITY: the database gives it, never TypeORM.
    id: { type: 'bigint', insert: false, update: false },
    properties: { type: 'jsonb' },
    createdAt: { name: 'created_at', type: 'timestamptz' },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
  },
});

interface SubscriberRow {
  properties: JsonObject;
  created_at: Date;
  updated_at: Date;
  subject_type: string;
  object_type: string;
  subject_id: string;
  subject_updated_at: Date;
  subject_subscriptions_count: number;
}

interface SubscribedToRow {
  properties: JsonObject;
  created_at: Date;
  updated_at: Date;
  object_type: string;
  object_id: string;
  object_properties: JsonObject;
  object_updated_at: Date;
  object_subscriptions_count: number;
}

/** A subscription as the reference lists an object's subscribers: `user` or `object` set, the other null. */
export interface SubscriptionEntry {
  properties: JsonObject;
  user: { distinct_id: string; updated_at: string } | null;
  object: { id: string; object_type: string; subscriptions_count: number; updated_at: string } | null;
  created_at: string;
  updated_at: string;
}

/** A subscription as the reference lists what a user or object is subscribed to. */
export interface SubscribedToEntry {
  properties: JsonObject;
  object: { id: string; object_type: string; properties: JsonObject; subscriptions_count: number; updated_at: string };
  created_at: string;
  updated_at: string;
}

const subscriptionsCountOf = (objectType: string, objectId: string): string =>
  `(SELECT count(*)::int FROM audience.object_subscriptions c WHERE c.workspace_id = s.workspace_id AND c.object_type = ${objectType} AND c.object_id = ${objectId})`;

/**
 * The subscriptions of an object: each subscriber joined to its global profile (and, for
 * objects, counted). Hand-written SQL, as the cursor pager takes it.
 */
const SUBSCRIBERS_FROM = `audience.object_subscriptions s
  JOIN audience.profiles p ON p.workspace_id = s.workspace_id AND p.subject_type = s.subscriber_type AND p.object_type = s.subscriber_object_type
   AND p.subject_id = s.subscriber_id AND p.tenant_id = ''
  WHERE s.workspace_id = $1 AND s.object_type = $2 AND s.object_id = $3`;
const SUBSCRIBER_COLUMNS = `s.properties, s.created_at, s.updated_at, s.subscriber_type AS subject_type, s.subscriber_object_type AS object_type,
  s.subscriber_id AS subject_id, p.updated_at AS subject_updated_at,
  CASE WHEN s.subscriber_type = 'object' THEN ${subscriptionsCountOf('s.subscriber_object_type', 's.subscriber_id')} ELSE 0 END AS subject_subscriptions_count`;

/**
 * Users and objects subscribed to objects (reference `/v1/object/{type}/{id}/subscription/`
 * and the `subscribed_to` reads). Every change is announced as `object_subscriptions`
 * in its transaction, keyed by the object subscribed to.
 */
@Injectable()
export class SubscriptionRepository {
  constructor(
    @InjectDataSource('audience') private readonly db: DataSource,
    private readonly profiles: ProfileRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Subscribes users and objects to `object` (404 when it does not exist). A subscriber
   * without a profile gets one, with what it carried inline; subscribing again replaces
   * the relation's properties.
   */
  async subscribe(ws: AuthenticatedWorkspace, object: ObjectRef, request: SubscribeRequest): Promise<SubscriptionEntry[]> {
    return this.db.transaction(async (tx) => {
      await this.lockObject(tx, ws, object);
      // Profiles are locked in one order by every call, so two concurrent calls cannot deadlock on them.
      for (const subscriber of [...request.subscribers].sort(bySubject)) {
        await this.profiles.mutateIn(tx, ws, subscriber.subject, undefined, (p) => applyUpsert(p, subscriber.profile), { create: true });
      }
      const subjects = request.subscribers.map((s) => s.subject);
      if (subjects.length > 0) {
        // A subscriber already subscribed keeps its subscription (and its page id); the insert's updated_at is the default, now().
        await this.subscriptions(tx)
          .createQueryBuilder()
          .insert()
          .values(subjects.map((subject) => ({ ...subscriptionKey(ws, object, subject), properties: request.properties })))
          .orUpdate(['properties', 'updated_at'], ['workspace_id', 'object_type', 'object_id', 'subscriber_type', 'subscriber_object_type', 'subscriber_id'])
          .updateEntity(false)
          .execute();
      }
      await writeOutbox(tx, AUDIENCE_OUTBOX, subscriptionMessages(ws, object, { added: subjects, properties: request.properties }, this.clock.now()));
      const [types, objectTypes, ids] = subjectArrays(subjects);
      // Hand-written: the subscriptions just written, in the shape (profile join, subscription count) the subscriber pages read.
      const rows = returningRows<SubscriberRow>(
        await tx.query(
          `SELECT ${SUBSCRIBER_COLUMNS} FROM ${SUBSCRIBERS_FROM}
             AND (s.subscriber_type, s.subscriber_object_type, s.subscriber_id) IN (SELECT * FROM unnest($4::text[], $5::text[], $6::text[]))
           ORDER BY s.id`,
          [ws.id, object.object_type, object.id, types, objectTypes, ids],
        ),
      );
      return rows.map(subscriptionEntry);
    });
  }

  /** Removes subscribers from `object` (404 when it does not exist); naming one that is not subscribed is not an error. */
  async unsubscribe(ws: AuthenticatedWorkspace, object: ObjectRef, subjects: readonly AudienceSubject[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      await this.lockObject(tx, ws, object);
      const removed = subjects.length === 0 ? [] : await this.deleteSubscriptions(tx, ws, object, subjects);
      await writeOutbox(tx, AUDIENCE_OUTBOX, subscriptionMessages(ws, object, { removed }, this.clock.now()));
    });
  }

  /** One page of the users and objects subscribed to `object`, by subscription id. */
  async subscribers(ws: AuthenticatedWorkspace, object: ObjectRef, query: CursorQuery): Promise<{ meta: CursorMeta; results: SubscriptionEntry[] }> {
    await this.requireSubject(ws, { type: 'object', ...object });
    const source = { from: SUBSCRIBERS_FROM, params: [ws.id, object.object_type, object.id], id: 's.id' };
    const page = await readCursorPage(sqlCursorRows<SubscriberRow>(this.db.manager, source, SUBSCRIBER_COLUMNS), query);
    return { meta: page.meta, results: page.rows.map(subscriptionEntry) };
  }

  /** One page of the objects a user or object is subscribed to, by subscription id. */
  async subscribedTo(ws: AuthenticatedWorkspace, subject: AudienceSubject, query: CursorQuery): Promise<{ meta: CursorMeta; results: SubscribedToEntry[] }> {
    await this.requireSubject(ws, subject);
    const { subjectType, objectType, subjectId } = subjectColumns(subject);
    const source = {
      from: `audience.object_subscriptions s
        JOIN audience.profiles p ON p.workspace_id = s.workspace_id AND p.subject_type = 'object' AND p.object_type = s.object_type
         AND p.subject_id = s.object_id AND p.tenant_id = ''
        WHERE s.workspace_id = $1 AND s.subscriber_type = $2 AND s.subscriber_object_type = $3 AND s.subscriber_id = $4`,
      params: [ws.id, subjectType, objectType, subjectId],
      id: 's.id',
    };
    const columns = `s.properties, s.created_at, s.updated_at, s.object_type, s.object_id, p.properties AS object_properties, p.updated_at AS object_updated_at,
      ${subscriptionsCountOf('s.object_type', 's.object_id')} AS object_subscriptions_count`;
    const page = await readCursorPage(sqlCursorRows<SubscribedToRow>(this.db.manager, source, columns), query);
    return { meta: page.meta, results: page.rows.map(subscribedToEntry) };
  }

  /** Deletes the subjects' subscriptions to `object`; answers the subjects that were subscribed. */
  private async deleteSubscriptions(tx: EntityManager, ws: AuthenticatedWorkspace, object: ObjectRef, subjects: readonly AudienceSubject[]): Promise<AudienceSubject[]> {
    const deleted = await this.subscriptions(tx)
      .createQueryBuilder()
      .delete()
      .where(subjects.map((subject) => subscriptionKey(ws, object, subject)))
      .returning(['subscriberType', 'subscriberObjectType', 'subscriberId'])
      .execute();
    return returningRows<{ subscriber_type: string; subscriber_object_type: string; subscriber_id: string }>(deleted.raw).map((row) =>
      subjectFromColumns({ subject_type: row.subscriber_type, object_type: row.subscriber_object_type, subject_id: row.subscriber_id }),
    );
  }

  /** Holds the object's row, ordering the writers of its subscriptions; 404 (short shape) when it does not exist. */
  private async lockObject(tx: EntityManager, ws: AuthenticatedWorkspace, object: ObjectRef): Promise<void> {
    const subject: AudienceSubject = { type: 'object', ...object };
    if (!(await this.profiles.exists(ws, subject, tx, true))) throw subjectNotFound(subject);
  }

  private async requireSubject(ws: AuthenticatedWorkspace, subject: AudienceSubject): Promise<void> {
    if (!(await this.profiles.exists(ws, subject))) throw subjectNotFound(subject);
  }

  private subscriptions(manager: EntityManager = this.db.manager): Repository<StoredSubscription> {
    return manager.getRepository(SubscriptionEntity);
  }
}

function bySubject(a: { subject: AudienceSubject }, b: { subject: AudienceSubject }): number {
  const [x, y] = [JSON.stringify(subjectColumns(a.subject)), JSON.stringify(subjectColumns(b.subject))];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The key of the subject's subscription to `object`. */
function subscriptionKey(ws: AuthenticatedWorkspace, object: ObjectRef, subject: AudienceSubject): Pick<StoredSubscription, 'workspaceId' | 'objectType' | 'objectId' | 'subscriberType' | 'subscriberObjectType' | 'subscriberId'> {
  const { subjectType, objectType, subjectId } = subjectColumns(subject);
  return { workspaceId: ws.id, objectType: object.object_type, objectId: object.id, subscriberType: subjectType, subscriberObjectType: objectType, subscriberId: subjectId };
}

/** Subjects as three parallel arrays of the subscriber columns, for `unnest`. */
function subjectArrays(subjects: readonly AudienceSubject[]): [string[], string[], string[]] {
  const columns = subjects.map(subjectColumns);
  return [columns.map((c) => c.subjectType), columns.map((c) => c.objectType), columns.map((c) => c.subjectId)];
}

function subscriptionEntry(row: SubscriberRow): SubscriptionEntry {
  const subject = subjectFromColumns(row);
  return {
    properties: row.properties,
    user: subject.type === 'user' ? { distinct_id: subject.distinct_id, updated_at: row.subject_updated_at.toISOString() } : null,
    object:
      subject.type === 'object'
        ? { id: subject.id, object_type: subject.object_type, subscriptions_count: row.subject_subscriptions_count, updated_at: row.subject_updated_at.toISOString() }
        : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function subscribedToEntry(row: SubscribedToRow): SubscribedToEntry {
  return {
    properties: row.properties,
    object: {
      id: row.object_id,
      object_type: row.object_type,
      properties: row.object_properties,
      subscriptions_count: row.object_subscriptions_count,
      updated_at: row.object_updated_at.toISOString(),
    },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}


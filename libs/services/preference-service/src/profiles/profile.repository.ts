import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AudienceSubject } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { returningRows } from '@herald/database';
import { CLOCK, Clock } from '@herald/runtime';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { CursorMeta, CursorQuery, readCursorPage } from '../http/cursor-page';
import { sqlCursorRows } from '../persistence/cursor-rows.repository';
import { AUDIENCE_OUTBOX } from '../outbox/audience-events';
import { ProfileScopeRow, StoredProfile, changedDocument, mergedProfile, notInTenant, profileMessage, profilesDeletedMessages, subscriptionsRemovedMessages } from './profile-changes';
import { Parsed, ProfileDocument } from './profile-document';
import { scopeOf, subjectColumns, subjectNotFound } from './subject';

/** A global profile as listed, with how many subscribe to it (objects). */
export interface ListedProfile extends StoredProfile {
  readonly subject_id: string;
  readonly subscriptions_count: number;
}

export interface MutateOptions {
  /** Create the profile when it does not exist. */
  readonly create: boolean;
  /** The accepted requests this change carries out, named on its announcement (see ProfileChanged.source_message_ids). */
  readonly sourceMessageIds?: readonly string[];
}

/** A transaction's manager (or the DataSource's, outside one) that the repository's methods run on. */
export type ProfileTransaction = EntityManager;

/**
 * Profiles of users and objects (`audience.profiles`), global (tenant '') and per tenant;
 * every change is announced through the outbox in its transaction. What a change makes of
 * a profile, and its announcements, are profile-changes.ts's pure functions.
 *
 * Hand-written throughout: every identify and every inline trigger recipient goes through
 * `mutate` (ingest bench), and the reads share its columns; the statements are as they
 * were measured.
 */
@Injectable()
export class ProfileRepository {
  constructor(
    @InjectDataSource('audience') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Changes one profile (creating it when `create`), in one transaction with its
   * announcement. `change` gets the current document and returns the new one.
   */
  async mutate(
    workspace: AuthenticatedWorkspace,
    subject: AudienceSubject,
    tenantId: string | undefined,
    change: (current: ProfileDocument) => Parsed<ProfileDocument>,
    options: MutateOptions,
  ): Promise<StoredProfile> {
    return this.db.transaction((tx) => this.mutateIn(tx, workspace, subject, tenantId, change, options));
  }

  /** `mutate` inside the caller's transaction, for changes that write more than the profile. */
  async mutateIn(
    tx: ProfileTransaction,
    workspace: AuthenticatedWorkspace,
    subject: AudienceSubject,
    tenantId: string | undefined,
    change: (current: ProfileDocument) => Parsed<ProfileDocument>,
    options: MutateOptions,
  ): Promise<StoredProfile> {
    const { subjectType, objectType, subjectId } = subjectColumns(subject);
    const key = [workspace.id, subjectType, objectType, subjectId, scopeOf(tenantId)];
    if (options.create) {
      // Hand-written (hot path, ingest bench): creates the row the locking read below finds.
      await tx.query(
        `INSERT INTO audience.profiles (workspace_id, subject_type, object_type, subject_id, tenant_id) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
        key,
      );
    }
    // Hand-written (hot path, ingest bench): the row locked until the change commits, so concurrent changes of one profile apply in turn.
    const row = returningRows<ProfileScopeRow>(await tx.query(
      `SELECT tenant_id, properties, channels, created_at, updated_at FROM audience.profiles
        WHERE workspace_id = $1 AND subject_type = $2 AND object_type = $3 AND subject_id = $4 AND tenant_id = $5 FOR UPDATE`,
      key,
    )).at(0);
    if (!row) throw subjectNotFound(subject);
    const next = changedDocument(row, change);
    // Hand-written (hot path, ingest bench): the row's times only, the document is what was just written (reading 256 KiB back costs a parse on the event loop).
    const [written] = returningRows<Pick<ProfileScopeRow, 'tenant_id' | 'created_at' | 'updated_at'>>(await tx.query(
      `UPDATE audience.profiles SET properties = $6::jsonb, channels = $7::jsonb, updated_at = now()
        WHERE workspace_id = $1 AND subject_type = $2 AND object_type = $3 AND subject_id = $4 AND tenant_id = $5
        RETURNING tenant_id, created_at, updated_at`,
      [...key, next.properties, next.channels],
    ));
    const stored = { ...written, properties: next.document.properties, channels: next.document.channels };
    await writeOutbox(tx, AUDIENCE_OUTBOX, [profileMessage(workspace, subject, tenantId, stored, options.sourceMessageIds, this.clock.now())]);
    return stored;
  }

  /**
   * Announces the profile as it is stored, changing nothing, for requests that were
   * carried out before (a redelivered identity event) or cannot be (one past the
   * limits): the engine acknowledges their ids with it, so the requests that accepted
   * them answer, whatever became of them. A profile gone since is announced deleted.
   */
  async announceStored(workspace: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, sourceMessageIds: readonly string[]): Promise<void> {
    const { subjectType, objectType, subjectId } = subjectColumns(subject);
    await this.db.transaction(async (tx) => {
      // Hand-written (ingest path: a redelivered identity event): the document alone, as the announcement carries it.
      const row = returningRows<ProfileDocument>(await tx.query(
        `SELECT properties, channels FROM audience.profiles
          WHERE workspace_id = $1 AND subject_type = $2 AND object_type = $3 AND subject_id = $4 AND tenant_id = $5`,
        [workspace.id, subjectType, objectType, subjectId, scopeOf(tenantId)],
      )).at(0);
      await writeOutbox(tx, AUDIENCE_OUTBOX, [profileMessage(workspace, subject, tenantId, row, sourceMessageIds, this.clock.now())]);
    });
  }

  /**
   * Runs `work` in a transaction unless the message was applied before; answers whether
   * it ran. For messages whose effect must not repeat on redelivery (identity events' `$add`).
   */
  async once(workspace: AuthenticatedWorkspace, messageId: string, work: (tx: ProfileTransaction) => Promise<void>): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      // Hand-written (hot path, every identity event): the claim and the check in one statement; a message applied before returns no row.
      const fresh = returningRows<unknown>(await tx.query(
        `INSERT INTO audience.applied_messages (workspace_id, message_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1`,
        [workspace.id, messageId],
      ));
      if (fresh.length === 0) return false;
      await work(tx);
      return true;
    });
  }

  /**
   * One page of the workspace's users, or of its objects of one type (reference
   * `GET /v1/user/`, `GET /v1/object/{object_type}/`), global profiles by creation order.
   */
  async page(workspace: AuthenticatedWorkspace, kind: { subjectType: 'user' } | { subjectType: 'object'; objectType: string }, query: CursorQuery): Promise<{ meta: CursorMeta; rows: ListedProfile[] }> {
    const source = {
      from: `audience.profiles p WHERE p.workspace_id = $1 AND p.subject_type = $2 AND p.object_type = $3 AND p.tenant_id = ''`,
      params: [workspace.id, kind.subjectType, kind.subjectType === 'object' ? kind.objectType : ''],
      id: 'p.id',
    };
    // Hand-written: each profile with its subscription count, one statement per page (sqlCursorRows).
    return readCursorPage(
      sqlCursorRows<ListedProfile>(
        this.db.manager,
        source,
        `p.subject_id, p.tenant_id, p.properties, p.channels, p.created_at, p.updated_at,
         (SELECT count(*)::int FROM audience.object_subscriptions s
           WHERE s.workspace_id = p.workspace_id AND p.subject_type = 'object' AND s.object_type = p.object_type AND s.object_id = p.subject_id) AS subscriptions_count`,
      ),
      query,
    );
  }

  /** The global profile, with the tenant's merged over it when `tenantId` names one; 404 when there is no global profile. */
  async read(workspace: AuthenticatedWorkspace, subject: AudienceSubject, tenantId?: string, manager: ProfileTransaction = this.db.manager): Promise<StoredProfile> {
    const { subjectType, objectType, subjectId } = subjectColumns(subject);
    // Hand-written: both scopes in one statement (tenant '' when `tenantId` is undefined, the global one twice).
    const rows = returningRows<ProfileScopeRow>(await manager.query(
      `SELECT tenant_id, properties, channels, created_at, updated_at FROM audience.profiles
        WHERE workspace_id = $1 AND subject_type = $2 AND object_type = $3 AND subject_id = $4 AND tenant_id IN ('', $5)`,
      [workspace.id, subjectType, objectType, subjectId, scopeOf(tenantId)],
    ));
    return mergedProfile(rows, subject, tenantId);
  }

  /**
   * Changes a user's profile in one tenant (the SDKs' `upsert_for_tenant`, `edit(...,
   * tenant_id)`), creating that tenant's profile when it does not exist. `createUser`
   * makes the user's global profile too when it is missing, as an identity event carrying
   * a tenant does; otherwise a user without one is a 404.
   */
  async mutateInTenant(
    workspace: AuthenticatedWorkspace,
    distinctId: string,
    tenantId: string,
    change: (current: ProfileDocument) => Parsed<ProfileDocument>,
    options: { readonly createUser: boolean },
  ): Promise<StoredProfile> {
    const subject: AudienceSubject = { type: 'user', distinct_id: distinctId };
    return this.db.transaction(async (tx) => {
      if (options.createUser) await this.mutateIn(tx, workspace, subject, undefined, (p) => ({ ok: true, value: p }), { create: true });
      else if (!(await this.exists(workspace, subject, tx, true))) throw subjectNotFound(subject);
      return this.mutateIn(tx, workspace, subject, tenantId, change, { create: true });
    });
  }

  /** A user's profile in one tenant alone (not merged over the global one); 404 when the user has none there. */
  async readInTenant(workspace: AuthenticatedWorkspace, distinctId: string, tenantId: string): Promise<StoredProfile> {
    // Hand-written: the columns `mutateIn`'s locking read takes, for one user's scope.
    const row = returningRows<ProfileScopeRow>(await this.db.query(
      `SELECT tenant_id, properties, channels, created_at, updated_at FROM audience.profiles
        WHERE workspace_id = $1 AND subject_type = 'user' AND object_type = '' AND subject_id = $2 AND tenant_id = $3`,
      [workspace.id, distinctId, tenantId],
    )).at(0);
    if (!row) throw notInTenant(distinctId, tenantId);
    return row;
  }

  /**
   * The tenants a user has a profile in (the SDKs' `list_associated_tenants`), cursor-paged
   * in the order they were linked; 404 when the user does not exist.
   */
  async tenantsOf(workspace: AuthenticatedWorkspace, distinctId: string, query: CursorQuery): Promise<{ meta: CursorMeta; rows: ProfileScopeRow[] }> {
    const subject: AudienceSubject = { type: 'user', distinct_id: distinctId };
    if (!(await this.exists(workspace, subject))) throw subjectNotFound(subject);
    // Hand-written: one statement per page (sqlCursorRows), as every cursor page of the service.
    return readCursorPage(
      sqlCursorRows<ProfileScopeRow>(
        this.db.manager,
        {
          from: `audience.profiles p WHERE p.workspace_id = $1 AND p.subject_type = 'user' AND p.object_type = '' AND p.subject_id = $2 AND p.tenant_id <> ''`,
          params: [workspace.id, distinctId],
          id: 'p.id',
        },
        'p.tenant_id, p.properties, p.channels, p.created_at, p.updated_at',
      ),
      query,
    );
  }

  /**
   * Unlinks a user from a tenant (the SDKs' `unlink_tenant`): drops the user's profile in
   * that tenant, announced so runs in the tenant read the global profile alone again. The
   * user's preferences in the tenant are their own resource and stay. 404 when not linked,
   * and for the empty tenant id, which is the global profile's row and no tenant.
   */
  async unlinkTenant(workspace: AuthenticatedWorkspace, distinctId: string, tenantId: string): Promise<void> {
    if (tenantId === '') throw notInTenant(distinctId, tenantId);
    const subject: AudienceSubject = { type: 'user', distinct_id: distinctId };
    await this.db.transaction(async (tx) => {
      // Hand-written: the delete answers whether there was a row, in one statement.
      const deleted = returningRows<unknown>(await tx.query(
        `DELETE FROM audience.profiles WHERE workspace_id = $1 AND subject_type = 'user' AND object_type = '' AND subject_id = $2 AND tenant_id = $3 RETURNING 1`,
        [workspace.id, distinctId, tenantId],
      ));
      if (deleted.length === 0) throw notInTenant(distinctId, tenantId);
      await writeOutbox(tx, AUDIENCE_OUTBOX, [profileMessage(workspace, subject, tenantId, undefined, undefined, this.clock.now())]);
    });
  }

  /** Whether the subject has a global profile; `lock` holds its row, ordering the writers of one subject's preferences. */
  async exists(workspace: AuthenticatedWorkspace, subject: AudienceSubject, manager: ProfileTransaction = this.db.manager, lock = false): Promise<boolean> {
    const { subjectType, objectType, subjectId } = subjectColumns(subject);
    // Hand-written (hot path: every preference read and write): one probe of the key, locking it when asked.
    const rows = returningRows<unknown>(await manager.query(
      `SELECT 1 FROM audience.profiles WHERE workspace_id = $1 AND subject_type = $2 AND object_type = $3 AND subject_id = $4 AND tenant_id = '' ${lock ? 'FOR UPDATE' : ''}`,
      [workspace.id, subjectType, objectType, subjectId],
    ));
    return rows.length > 0;
  }

  /**
   * Deletes a user or object for good: every profile scope, its preferences and its
   * subscriptions (as subscriber and, for objects, as the object subscribed to).
   */
  async delete(workspace: AuthenticatedWorkspace, subject: AudienceSubject): Promise<void> {
    const { subjectType, objectType, subjectId } = subjectColumns(subject);
    const key = [workspace.id, subjectType, objectType, subjectId];
    await this.db.transaction(async (tx) => {
      // Hand-written: every scope in one statement, answering the scopes it announces.
      const deleted = returningRows<{ tenant_id: string }>(await tx.query(
        `DELETE FROM audience.profiles WHERE workspace_id = $1 AND subject_type = $2 AND object_type = $3 AND subject_id = $4 RETURNING tenant_id`,
        key,
      ));
      if (deleted.length === 0) throw subjectNotFound(subject);
      for (const table of ['category_preferences', 'channel_preferences']) {
        await tx.query(`DELETE FROM audience.${table} WHERE workspace_id = $1 AND subject_type = $2 AND object_type = $3 AND subject_id = $4`, key);
      }
      const subscriptions = await this.deleteSubscriptionsOf(tx, workspace, subject);
      if (subject.type === 'user') {
        // Hand-written: the user's memberships deleted and each list's count kept, in one statement.
        await tx.query(
          `WITH gone AS (DELETE FROM audience.list_subscribers WHERE workspace_id = $1 AND distinct_id = $2 RETURNING list_id)
           UPDATE audience.lists l SET subscribers_count = l.subscribers_count - c.n, updated_at = now()
             FROM (SELECT list_id, count(*)::int AS n FROM gone GROUP BY list_id) c
            WHERE l.workspace_id = $1 AND l.list_id = c.list_id`,
          [workspace.id, subjectId],
        );
      }
      const now = this.clock.now();
      await writeOutbox(tx, AUDIENCE_OUTBOX, profilesDeletedMessages(workspace, subject, deleted, now));
      await writeOutbox(tx, AUDIENCE_OUTBOX, subscriptionsRemovedMessages(workspace, subject, subscriptions.parents, subscriptions.subscribers, now));
    });
  }

  /**
   * Removes the subscriptions of a subject being deleted, as subscriber and (objects)
   * as the object subscribed to; answers the objects it was subscribed to and its subscribers.
   */
  private async deleteSubscriptionsOf(
    tx: ProfileTransaction,
    workspace: AuthenticatedWorkspace,
    subject: AudienceSubject,
  ): Promise<{ parents: Array<{ object_type: string; object_id: string }>; subscribers: Array<{ subject_type: string; object_type: string; subject_id: string }> }> {
    const { subjectType, objectType, subjectId } = subjectColumns(subject);
    // Hand-written: the deletes answer what they removed, for the announcements.
    const parents = returningRows<{ object_type: string; object_id: string }>(await tx.query(
      `DELETE FROM audience.object_subscriptions WHERE workspace_id = $1 AND subscriber_type = $2 AND subscriber_object_type = $3 AND subscriber_id = $4
       RETURNING object_type, object_id`,
      [workspace.id, subjectType, objectType, subjectId],
    ));
    const subscribers =
      subject.type === 'object'
        ? returningRows<{ subject_type: string; object_type: string; subject_id: string }>(await tx.query(
            `DELETE FROM audience.object_subscriptions WHERE workspace_id = $1 AND object_type = $2 AND object_id = $3
             RETURNING subscriber_type AS subject_type, subscriber_object_type AS object_type, subscriber_id AS subject_id`,
            [workspace.id, objectType, subjectId],
          ))
        : [];
    return { parents, subscribers };
  }

  /** How many users and objects are subscribed to an object. */
  async subscriptionsCount(workspace: AuthenticatedWorkspace, objectType: string, id: string): Promise<number> {
    // Hand-written: a count, as the subscriber pages count.
    const [row] = returningRows<{ n: number }>(await this.db.query(
      `SELECT count(*)::int AS n FROM audience.object_subscriptions WHERE workspace_id = $1 AND object_type = $2 AND object_id = $3`,
      [workspace.id, objectType, id],
    ));
    return row.n;
  }
}

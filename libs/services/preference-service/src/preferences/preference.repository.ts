import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { CategoryChoice, SubjectPreferences } from '@herald/audience';
import { AudienceSubject } from '@herald/contracts';
import { returningRows } from '@herald/database';
import { OutboxMessage, writeOutbox } from '@herald/event-store';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { AUDIENCE_OUTBOX } from '../outbox/audience-events';
import { scopeOf, subjectColumns } from '../profiles/subject';

/** A transaction's manager (or the DataSource's, outside one) that the repository's methods run on. */
export type PreferenceTransaction = EntityManager;

/** What a bulk reset forgets in the scope. */
export interface PreferenceReset {
  readonly channels: boolean;
  readonly categories: boolean;
}

/** The key of one recipient's choices in one scope, `$1..$5` of every statement below. */
const SCOPE_WHERE = `workspace_id = $1 AND subject_type = $2 AND object_type = $3 AND subject_id = $4 AND tenant_id = $5`;

function scopeKey(ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined): unknown[] {
  const { subjectType, objectType, subjectId } = subjectColumns(subject);
  return [ws.id, subjectType, objectType, subjectId, scopeOf(tenantId)];
}

/**
 * The preferences of users and objects, per scope (global: tenant '', or one tenant):
 * choices per category (`audience.category_preferences`) and channel restrictions
 * (`audience.channel_preferences`), and their announcements. What a change means is
 * `Preferences`' (preferences.ts); this is its data access.
 *
 * Hand-written throughout: the preference reads and writes are on the flow bench's path,
 * and their statements are as they were measured.
 */
@Injectable()
export class PreferenceRepository {
  constructor(@InjectDataSource('audience') private readonly db: DataSource) {}

  /** Runs `work` in one transaction. */
  transaction<T>(work: (tx: PreferenceTransaction) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** The recipient's choices in one scope (`manager`: a transaction's, or the DataSource's when undefined). */
  async layer(ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, manager: PreferenceTransaction = this.db.manager): Promise<SubjectPreferences> {
    const key = scopeKey(ws, subject, tenantId);
    // Hand-written (flow bench): a key lookup each, the restricted channels in name order.
    const categories = returningRows<{ category: string; choice: CategoryChoice }>(
      await manager.query(`SELECT category, choice FROM audience.category_preferences WHERE ${SCOPE_WHERE}`, key),
    );
    const channels = returningRows<{ channel: string }>(
      await manager.query(`SELECT channel FROM audience.channel_preferences WHERE ${SCOPE_WHERE} AND is_restricted ORDER BY channel`, key),
    );
    return { categories: Object.fromEntries(categories.map((c) => [c.category, c.choice])), restricted_channels: channels.map((c) => c.channel) };
  }

  /** Stores the recipient's choice for one category in the scope, replacing the one before. */
  async saveCategory(tx: PreferenceTransaction, ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, slug: string, choice: CategoryChoice): Promise<void> {
    // Hand-written (flow bench): one upsert on the scope's key.
    await tx.query(
      `INSERT INTO audience.category_preferences (workspace_id, subject_type, object_type, subject_id, tenant_id, category, choice)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)
       ON CONFLICT (workspace_id, subject_type, object_type, subject_id, tenant_id, category) DO UPDATE SET choice = EXCLUDED.choice, updated_at = now()`,
      [...scopeKey(ws, subject, tenantId), slug, JSON.stringify(choice)],
    );
  }

  /** Stores whether each channel is restricted for the recipient in the scope, one upsert per channel, in the given order. */
  async saveChannels(
    tx: PreferenceTransaction,
    ws: AuthenticatedWorkspace,
    subject: AudienceSubject,
    tenantId: string | undefined,
    items: ReadonlyArray<{ readonly channel: string; readonly is_restricted: boolean }>,
  ): Promise<void> {
    const key = scopeKey(ws, subject, tenantId);
    for (const item of items) {
      // Hand-written (flow bench): one upsert per channel on the scope's key.
      await tx.query(
        `INSERT INTO audience.channel_preferences (workspace_id, subject_type, object_type, subject_id, tenant_id, channel, is_restricted)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (workspace_id, subject_type, object_type, subject_id, tenant_id, channel) DO UPDATE SET is_restricted = EXCLUDED.is_restricted`,
        [...key, item.channel, item.is_restricted],
      );
    }
  }

  /** Forgets the recipient's channel restrictions and/or category choices in the scope. */
  async reset(tx: PreferenceTransaction, ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, reset: PreferenceReset): Promise<void> {
    const key = scopeKey(ws, subject, tenantId);
    // Hand-written: a delete on the scope's key per table.
    if (reset.channels) await tx.query(`DELETE FROM audience.channel_preferences WHERE ${SCOPE_WHERE}`, key);
    if (reset.categories) await tx.query(`DELETE FROM audience.category_preferences WHERE ${SCOPE_WHERE}`, key);
  }

  /** Writes the change's announcements in its transaction. */
  async announce(tx: PreferenceTransaction, messages: readonly OutboxMessage[]): Promise<void> {
    await writeOutbox(tx, AUDIENCE_OUTBOX, messages);
  }
}

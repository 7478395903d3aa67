import { EntityManager } from 'typeorm';
import { writeOutbox } from '@herald/event-store';
import { MANAGEMENT_OUTBOX, definitionChangedMessage } from '../management-events/management-events';
import { CategoryDocument } from './category-document';

/**
 * The categories every workspace starts with, live, so a first workflow can name one
 * without writing a category document first. One per root, named like the root: the
 * slugs SuprSend users write (`category: "transactional"`). `system` cannot be
 * unsubscribed from (security and account mail); the others are opt-in by default.
 */
export const DEFAULT_CATEGORY_DOCUMENT: CategoryDocument = {
  root_categories: [
    {
      root_category: 'system',
      sections: [{ name: 'System', categories: [{ category: 'system', name: 'System', description: 'Security and account notices', default_preference: 'cant_unsubscribe' }] }],
    },
    {
      root_category: 'transactional',
      sections: [{ name: 'Transactional', categories: [{ category: 'transactional', name: 'Transactional', description: 'Messages about what the user did', default_preference: 'opt_in' }] }],
    },
    {
      root_category: 'promotional',
      sections: [{ name: 'Promotional', categories: [{ category: 'promotional', name: 'Promotional', description: 'Newsletters and offers', default_preference: 'opt_in' }] }],
    },
  ],
};

/**
 * Gives the workspaces that have no category document yet the default one, live, and
 * announces it (in the caller's transaction). Idempotent: a workspace with any version,
 * draft or live, keeps it. Also covers workspaces created before defaults existed.
 */
export async function seedDefaultCategories(tx: EntityManager, workspaceIds: readonly string[] | 'all', now: Date): Promise<number> {
  const seeded = (await tx.query(
    `INSERT INTO management.preference_category_versions (workspace_id, version_no, status, document, validation_errors, commit_message, committed_at)
     SELECT w.id, 1, 'active', $2::jsonb, '[]'::jsonb, 'default categories', now()
       FROM management.workspaces w
      WHERE ($1::uuid[] IS NULL OR w.id = ANY($1::uuid[]))
        AND NOT EXISTS (SELECT 1 FROM management.preference_category_versions v WHERE v.workspace_id = w.id)
     ON CONFLICT DO NOTHING
     RETURNING workspace_id, (SELECT slug FROM management.workspaces WHERE id = workspace_id) AS workspace_slug`,
    [workspaceIds === 'all' ? null : workspaceIds, JSON.stringify(DEFAULT_CATEGORY_DOCUMENT)],
  )) as Array<{ workspace_id: string; workspace_slug: string }>;
  await writeOutbox(
    tx,
    MANAGEMENT_OUTBOX,
    seeded.map((row) =>
      definitionChangedMessage(
        { kind: 'category', change: 'committed', workspace_id: row.workspace_id, workspace_slug: row.workspace_slug, id: 'categories', version: 1, document: DEFAULT_CATEGORY_DOCUMENT },
        now,
      ),
    ),
  );
  return seeded.length;
}

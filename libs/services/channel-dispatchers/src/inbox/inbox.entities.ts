import { EntitySchema } from 'typeorm';

/**
 * What a message shows besides its text, stored as JSON (`extras`): only the feed reads
 * it, and nothing filters on it. Null when the template set none of it.
 */
export interface InboxExtras {
  readonly subtext?: { readonly text: string; readonly url?: string };
  readonly buttons?: ReadonlyArray<{ readonly text: string; readonly url: string; readonly open_in_new_tab?: boolean }>;
  readonly avatar_url?: string;
  readonly open_in_new_tab?: boolean;
  readonly extra_data?: string;
  readonly expiry_visible?: boolean;
  readonly importance?: 'high';
}

/** A message in `dispatch.inbox_messages`, a recipient's inbox. */
export interface InboxMessage {
  /** Storage order (bigserial): orders messages stored in the same millisecond. */
  seq: string;
  id: string;
  workspaceId: string;
  distinctId: string;
  deliveryId: string;
  tenantId: string | null;
  title: string | null;
  body: string;
  avatar: string | null;
  actionUrl: string | null;
  createdAt: Date;
  seenAt: Date | null;
  readAt: Date | null;
  archivedAt: Date | null;
  clickedAt: Date | null;
  /** The engagement outcomes already published for it (each once). */
  outcomesPublished: string[];
  pinned: boolean;
  expiresAt: Date | null;
  tags: string[];
  extras: InboxExtras | null;
}

/** When a recipient last reset the bell's badge, per tenant scope (`''`: every tenant). */
export interface InboxBadgeReset {
  workspaceId: string;
  distinctId: string;
  tenantScope: string;
  resetAt: Date;
}

/**
 * `dispatch.inbox_messages` (created by the migrations, never by TypeORM). The hot path
 * (InboxRepository) stores and updates messages with its own SQL; this maps the table for
 * the repositories that read it.
 */
export const InboxMessageEntity = new EntitySchema<InboxMessage>({
  name: 'InboxMessage',
  schema: 'dispatch',
  tableName: 'inbox_messages',
  columns: {
    seq: { type: 'bigint', primary: true, generated: 'increment' },
    id: { type: 'uuid' },
    workspaceId: { name: 'workspace_id', type: 'uuid' },
    distinctId: { name: 'distinct_id', type: 'text' },
    deliveryId: { name: 'delivery_id', type: 'text' },
    tenantId: { name: 'tenant_id', type: 'text', nullable: true },
    title: { type: 'text', nullable: true },
    body: { type: 'text' },
    avatar: { type: 'text', nullable: true },
    actionUrl: { name: 'action_url', type: 'text', nullable: true },
    createdAt: { name: 'created_at', type: 'timestamptz' },
    seenAt: { name: 'seen_at', type: 'timestamptz', nullable: true },
    readAt: { name: 'read_at', type: 'timestamptz', nullable: true },
    archivedAt: { name: 'archived_at', type: 'timestamptz', nullable: true },
    clickedAt: { name: 'clicked_at', type: 'timestamptz', nullable: true },
    outcomesPublished: { name: 'outcomes_published', type: 'text', array: true },
    pinned: { type: 'boolean' },
    expiresAt: { name: 'expires_at', type: 'timestamptz', nullable: true },
    tags: { type: 'text', array: true },
    extras: { type: 'jsonb', nullable: true },
  },
});

/** `dispatch.inbox_badge_resets` (created by the migrations, never by TypeORM). */
export const InboxBadgeResetEntity = new EntitySchema<InboxBadgeReset>({
  name: 'InboxBadgeReset',
  schema: 'dispatch',
  tableName: 'inbox_badge_resets',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    distinctId: { name: 'distinct_id', type: 'text', primary: true },
    tenantScope: { name: 'tenant_scope', type: 'text', primary: true },
    resetAt: { name: 'reset_at', type: 'timestamptz' },
  },
});

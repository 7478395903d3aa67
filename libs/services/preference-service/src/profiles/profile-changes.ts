import { AudienceSubject, HeraldError } from '@herald/contracts';
import { OutboxMessage } from '@herald/event-store';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { audienceChangedMessage, subscriptionMessages } from '../outbox/audience-events';
import { Parsed, ProfileDocument, mergeProfiles, profileLimitProblem } from './profile-document';
import { subjectFromColumns, subjectNotFound } from './subject';

/**
 * What ProfileRepository decides between its statements, and the announcements it writes:
 * pure functions, no SQL.
 */

/** A stored profile: its document and the row's times. */
export interface StoredProfile extends ProfileDocument {
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** A profile row of one scope (tenant '' is the global profile). */
export interface ProfileScopeRow extends StoredProfile {
  readonly tenant_id: string;
}

/** The document a change makes, with its JSON as it is written. */
export interface ChangedDocument {
  readonly document: ProfileDocument;
  readonly properties: string;
  readonly channels: string;
}

/**
 * The document `change` makes of the stored `current` one, serialised; throws the
 * validation error the change answers, or the limit it would pass. A profile stored
 * before the limits existed may still shrink (an $unset), never grow.
 */
export function changedDocument(current: ProfileDocument, change: (current: ProfileDocument) => Parsed<ProfileDocument>): ChangedDocument {
  const next = change({ properties: current.properties, channels: current.channels });
  if (!next.ok) throw HeraldError.validation(next.errors);
  const properties = JSON.stringify(next.value.properties);
  const channels = JSON.stringify(next.value.channels);
  const tooLarge = profileLimitProblem(next.value, Buffer.byteLength(properties) + Buffer.byteLength(channels));
  if (tooLarge && !shrinks(next.value, { properties: current.properties, channels: current.channels })) throw tooLarge;
  return { document: next.value, properties, channels };
}

/** Whether `next` is smaller than `current` in properties and in bytes. */
function shrinks(next: ProfileDocument, current: ProfileDocument): boolean {
  return Object.keys(next.properties).length <= Object.keys(current.properties).length && JSON.stringify(next).length < JSON.stringify(current).length;
}

/**
 * The global profile of `rows` (its scopes '' and `tenantId`), with the tenant's merged
 * over it when `tenantId` names one; 404 when there is no global profile.
 */
export function mergedProfile(rows: readonly ProfileScopeRow[], subject: AudienceSubject, tenantId: string | undefined): StoredProfile {
  const global = rows.find((r) => r.tenant_id === '');
  if (!global) throw subjectNotFound(subject);
  const tenant = tenantId ? rows.find((r) => r.tenant_id === tenantId) : undefined;
  return { ...global, ...mergeProfiles(global, tenant), updated_at: tenant && tenant.updated_at > global.updated_at ? tenant.updated_at : global.updated_at };
}

/** The 404 of a user without a profile in the tenant (short shape). */
export function notInTenant(distinctId: string, tenantId: string): HeraldError {
  return HeraldError.notFound(`user '${distinctId}' has no profile in tenant '${tenantId}'`, 'short');
}

/**
 * The announcement of one profile scope: upserted with its document, or deleted when
 * `stored` is undefined, naming the accepted requests it carries out.
 */
export function profileMessage(
  workspace: AuthenticatedWorkspace,
  subject: AudienceSubject,
  tenantId: string | undefined,
  stored: ProfileDocument | undefined,
  sourceMessageIds: readonly string[] | undefined,
  now: Date,
): OutboxMessage {
  return audienceChangedMessage(
    workspace.id,
    {
      kind: 'profile',
      change: stored === undefined ? 'deleted' : 'upserted',
      workspace_slug: workspace.slug,
      subject,
      ...(tenantId === undefined ? {} : { tenant_id: tenantId }),
      ...(stored === undefined ? {} : { profile: { properties: stored.properties, channels: stored.channels } }),
      ...(sourceMessageIds && sourceMessageIds.length > 0 ? { source_message_ids: sourceMessageIds } : {}),
    },
    now,
  );
}

/** The announcements of a deleted subject's profile scopes (tenant '' is the global one), one per scope. */
export function profilesDeletedMessages(workspace: AuthenticatedWorkspace, subject: AudienceSubject, scopes: ReadonlyArray<{ readonly tenant_id: string }>, now: Date): OutboxMessage[] {
  return scopes.map((row) =>
    audienceChangedMessage(
      workspace.id,
      { kind: 'profile', change: 'deleted', workspace_slug: workspace.slug, subject, ...(row.tenant_id === '' ? {} : { tenant_id: row.tenant_id }) },
      now,
    ),
  );
}

/**
 * The announcements of a deleted subject's subscriptions: one set per object it was
 * subscribed to (`parents`), and (objects) the subscribers it had.
 */
export function subscriptionsRemovedMessages(
  workspace: AuthenticatedWorkspace,
  subject: AudienceSubject,
  parents: ReadonlyArray<{ readonly object_type: string; readonly object_id: string }>,
  subscribers: ReadonlyArray<{ readonly subject_type: string; readonly object_type: string; readonly subject_id: string }>,
  now: Date,
): OutboxMessage[] {
  return [
    ...parents.flatMap((parent) => subscriptionMessages(workspace, { object_type: parent.object_type, id: parent.object_id }, { removed: [subject] }, now)),
    ...(subject.type === 'object' ? subscriptionMessages(workspace, subject, { removed: subscribers.map(subjectFromColumns) }, now) : []),
  ];
}

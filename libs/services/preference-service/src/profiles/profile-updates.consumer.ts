import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { AUDIENCE_CHANGED_TYPE, AudienceChanged, FieldError, HeraldError, InlineProfileUpdate, TOPICS, UserOperationsUpdate, parseAudienceChanged } from '@herald/contracts';
import { AuthenticatedWorkspace, ConsumerRegistry, HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { applyInline, applyUserOperations } from './profile-document';
import { ProfileStore } from './profile-store';

/**
 * Applies the profile changes ingest-api accepts: the inline recipients of triggers
 * (`inline_profile`) and the SDKs' identity events (`user_operations`), to the global
 * profile or the per-tenant one. The other kinds on the topic are this service's own
 * announcements and are skipped.
 */
@Injectable()
export class ProfileUpdatesConsumer implements OnApplicationBootstrap {
  constructor(
    private readonly consumers: ConsumerRegistry,
    private readonly profiles: ProfileStore,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.consumers.consume([TOPICS.audienceChanged.name], {
      // The group keeps its first name: renaming it would start a new group at the topic's end.
      groupId: 'herald.audience.inline-profiles',
      type: AUDIENCE_CHANGED_TYPE,
      parsePayload: parseAudienceChanged,
      handle: (change, envelope) => this.apply({ id: envelope.workspace_id, slug: change.workspace_slug }, change),
    });
  }

  private async apply(workspace: AuthenticatedWorkspace, change: AudienceChanged): Promise<void> {
    try {
      if (change.kind === 'inline_profile') await this.applyInline(workspace, change);
      if (change.kind === 'user_operations') await this.applyOperations(workspace, change);
    } catch (error) {
      // A change that would take the profile past its limits never fits: dead-letter it (a validation error) instead of retrying it forever.
      if (error instanceof HeraldError && error.code === 'payload_too_large') throw new HeraldError('validation_error', error.message, error.fieldErrors);
      throw error;
    }
  }

  /** Redelivery is harmless: properties are set and channel values appended once. */
  private async applyInline(workspace: AuthenticatedWorkspace, change: InlineProfileUpdate): Promise<void> {
    if (change.tenant_id !== undefined) {
      // A per-tenant profile merges over a global one, which must exist for the recipient to be known.
      await this.profiles.mutate(workspace, change.subject, undefined, (p) => ({ ok: true, value: p }), { create: true });
    }
    await this.profiles.mutate(
      workspace,
      change.subject,
      change.tenant_id,
      (p) => ({ ok: true, value: applyInline(p, { channels: { ...change.channels }, properties: { ...change.properties }, timezone: change.timezone, locale: change.locale }) }),
      { create: true },
    );
  }

  /** Once per accepted request (`source_message_id`): `$add` would count a redelivery twice. */
  private async applyOperations(workspace: AuthenticatedWorkspace, change: UserOperationsUpdate): Promise<void> {
    const subject = { type: 'user' as const, distinct_id: change.distinct_id };
    const skipped: FieldError[] = [];
    await this.profiles.once(workspace, change.source_message_id, async (tx) => {
      if (change.tenant_id !== undefined) await this.profiles.mutateIn(tx, workspace, subject, undefined, (p) => ({ ok: true, value: p }), { create: true });
      await this.profiles.mutateIn(
        tx,
        workspace,
        subject,
        change.tenant_id,
        (p) => {
          const applied = applyUserOperations(p, change.operations);
          skipped.push(...applied.errors);
          return { ok: true, value: applied.profile };
        },
        { create: true },
      );
    });
    if (skipped.length > 0) {
      this.logger.warn('identity event operations skipped: they do not apply to the profile', {
        workspace_id: workspace.id,
        source_message_id: change.source_message_id,
        errors: skipped.map((e) => `${e.path}: ${e.message}`),
      });
    }
  }
}

import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import {
  AUDIENCE_CHANGED_TYPE,
  AudienceChanged,
  AudienceSubject,
  Envelope,
  FieldError,
  HeraldError,
  InlineProfileUpdate,
  TOPICS,
  UserOperationsUpdate,
  parseAudienceChanged,
} from '@herald/contracts';
import { AuthenticatedWorkspace, BusMessageContext, ConsumerOf, HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { applyInline, applyUserOperations } from './profile-document';
import { ProfileRepository } from './profile.repository';

/**
 * Applies the profile changes ingest-api accepts: the inline recipients of triggers
 * (`inline_profile`) and the SDKs' identity events (`user_operations`), to the global
 * profile or the per-tenant one. The other kinds on the topic are this service's own
 * announcements and are skipped.
 */
@Controller()
export class ProfileUpdatesConsumer {
  constructor(
    private readonly profiles: ProfileRepository,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  // The group keeps its first name: renaming it would start a new group at the topic's end.
  @ConsumerOf({ groupId: 'herald.audience.inline-profiles', topics: [TOPICS.audienceChanged.name], messages: { type: AUDIENCE_CHANGED_TYPE, parsePayload: parseAudienceChanged } })
  async read(@Payload() change: AudienceChanged, @Ctx() context: BusMessageContext<Envelope<AudienceChanged>>): Promise<void> {
    await this.apply({ id: context.envelope.workspace_id, slug: change.workspace_slug }, change);
  }

  private async apply(workspace: AuthenticatedWorkspace, change: AudienceChanged): Promise<void> {
    if (change.kind !== 'inline_profile' && change.kind !== 'user_operations') return;
    try {
      if (change.kind === 'inline_profile') await this.applyInline(workspace, change);
      else await this.applyOperations(workspace, change);
    } catch (error) {
      // A change that would take the profile past its limits never fits: dead-letter it (a validation error) instead of retrying it forever.
      if (error instanceof HeraldError && error.code === 'payload_too_large') {
        // Its request still waits for the engine's acknowledgement (AudienceVisibility): the profile as stored, unchanged, answers it.
        await this.profiles.announceStored(workspace, subjectOf(change), change.tenant_id, [change.source_message_id]);
        throw new HeraldError('validation_error', error.message, error.fieldErrors);
      }
      throw error;
    }
  }

  /**
   * Redelivery is harmless: properties are set and channel values appended once. The
   * last write names the trigger that carried the data (`source_message_ids`).
   */
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
      { create: true, sourceMessageIds: [change.source_message_id] },
    );
  }

  /**
   * Once per accepted request (`source_message_id`): `$add` would count a redelivery
   * twice. A redelivery announces the stored profile instead, naming the request, since
   * the request that accepted it (a takeover's republish) may wait for it.
   */
  private async applyOperations(workspace: AuthenticatedWorkspace, change: UserOperationsUpdate): Promise<void> {
    const subject = subjectOf(change);
    const skipped: FieldError[] = [];
    const applied = await this.profiles.once(workspace, change.source_message_id, async (tx) => {
      if (change.tenant_id !== undefined) await this.profiles.mutateIn(tx, workspace, subject, undefined, (p) => ({ ok: true, value: p }), { create: true });
      await this.profiles.mutateIn(
        tx,
        workspace,
        subject,
        change.tenant_id,
        (p) => {
          const result = applyUserOperations(p, change.operations);
          skipped.push(...result.errors);
          return { ok: true, value: result.profile };
        },
        { create: true, sourceMessageIds: [change.source_message_id] },
      );
    });
    if (!applied) await this.profiles.announceStored(workspace, subject, change.tenant_id, [change.source_message_id]);
    if (skipped.length > 0) {
      this.logger.warn('identity event operations skipped: they do not apply to the profile', {
        workspace_id: workspace.id,
        source_message_id: change.source_message_id,
        errors: skipped.map((e) => `${e.path}: ${e.message}`),
      });
    }
  }
}

function subjectOf(change: InlineProfileUpdate | UserOperationsUpdate): AudienceSubject {
  return change.kind === 'inline_profile' ? change.subject : { type: 'user', distinct_id: change.distinct_id };
}

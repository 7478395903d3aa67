import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { AUDIENCE_CHANGED_TYPE, AudienceChanged, TOPICS, parseAudienceChanged } from '@herald/contracts';
import { ConsumerRegistry } from '@herald/runtime';
import { applyInline } from './profile-document';
import { ProfileStore } from './profile-store';

/**
 * Applies the inline recipients of triggers (`inline_profile`, published by ingest-api)
 * to the global profile, or to the per-tenant one. Redelivery is harmless: properties
 * are set and channel values appended once. The other kinds on the topic are this
 * service's own announcements and are skipped.
 */
@Injectable()
export class InlineProfileConsumer implements OnApplicationBootstrap {
  constructor(
    private readonly consumers: ConsumerRegistry,
    private readonly profiles: ProfileStore,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.consumers.consume([TOPICS.audienceChanged.name], {
      groupId: 'herald.audience.inline-profiles',
      type: AUDIENCE_CHANGED_TYPE,
      parsePayload: parseAudienceChanged,
      handle: (change, envelope) => this.apply(envelope.workspace_id, change),
    });
  }

  private async apply(workspaceId: string, change: AudienceChanged): Promise<void> {
    if (change.kind !== 'inline_profile') return;
    const workspace = { id: workspaceId, slug: change.workspace_slug };
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
}

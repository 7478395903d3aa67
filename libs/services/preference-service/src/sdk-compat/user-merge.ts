import { Injectable } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { JsonObject, ProfileDocument } from '../profiles/profile-document';
import { StoredProfile } from '../profiles/profile-changes';
import { ProfileRepository } from '../profiles/profile.repository';
import { UserMergeBody } from './request-bodies';
import { UserMergeRepository } from './user-merge.repository';

/**
 * `POST /v1/user/{distinct_id}/merge/` (reference `merge-users`, the SDKs' `users.merge`):
 * the secondary user's channels and properties are merged into the primary (the
 * primary's properties win; channel values are added once each), then the secondary is
 * deleted. Both steps are idempotent, so a retry after a failure between them finishes it.
 */
@Injectable()
export class UserMerge {
  constructor(
    private readonly merges: UserMergeRepository,
    private readonly profiles: ProfileRepository,
  ) {}

  async merge(ws: AuthenticatedWorkspace, distinctId: string, body: UserMergeBody): Promise<StoredProfile> {
    const from = body.from_user_id;
    // The schema checked the id; merging a user into itself would delete it.
    if (from === distinctId) throw HeraldError.validation([{ path: 'from_user_id', message: 'must differ from the user merged into' }]);
    const merged = await this.merges.mergeInto(ws, distinctId, from, mergeDocuments);
    await this.profiles.delete(ws, { type: 'user', distinct_id: from }).catch((error: unknown) => {
      // Deleted by a concurrent merge or delete: the outcome is the same.
      if (!(error instanceof HeraldError && error.code === 'not_found')) throw error;
    });
    return merged;
  }
}

/** The primary's properties win; each channel keeps the primary's values, then the secondary's it lacks. */
export function mergeDocuments(primary: ProfileDocument, secondary: ProfileDocument): ProfileDocument {
  const channels: Record<string, unknown[]> = { ...primary.channels };
  for (const [channel, values] of Object.entries(secondary.channels)) {
    const seen = new Set((channels[channel] ?? []).map((value) => JSON.stringify(value)));
    channels[channel] = [...(channels[channel] ?? []), ...values.filter((value) => !seen.has(JSON.stringify(value)))];
  }
  const properties: JsonObject = { ...secondary.properties, ...primary.properties };
  return { properties, channels };
}

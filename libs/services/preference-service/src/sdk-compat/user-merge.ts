import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { JsonObject, ProfileDocument } from '../profiles/profile-document';
import { ProfileStore, StoredProfile } from '../profiles/profile-store';
import { UserMergeBody } from './request-bodies';

/**
 * `POST /v1/user/{distinct_id}/merge/` (reference `merge-users`, the SDKs' `users.merge`):
 * the secondary user's channels and properties are merged into the primary (the
 * primary's properties win; channel values are added once each), then the secondary is
 * deleted. Both steps are idempotent, so a retry after a failure between them finishes it.
 */
@Injectable()
export class UserMerge {
  constructor(
    @InjectDataSource('audience') private readonly db: DataSource,
    private readonly profiles: ProfileStore,
  ) {}

  async merge(ws: AuthenticatedWorkspace, distinctId: string, body: UserMergeBody): Promise<StoredProfile> {
    const from = body.from_user_id;
    // The schema checked the id; merging a user into itself would delete it.
    if (from === distinctId) throw HeraldError.validation([{ path: 'from_user_id', message: 'must differ from the user merged into' }]);
    const merged = await this.db.transaction(async (tx) => {
      let secondary: StoredProfile;
      try {
        secondary = await this.profiles.read(ws, { type: 'user', distinct_id: from }, undefined, tx);
      } catch (error) {
        if (error instanceof HeraldError && error.code === 'not_found') throw HeraldError.notFound(`from_user_id: [distinct_id: '${from}'] not found`, 'short');
        throw error;
      }
      return this.profiles.mutateIn(tx, ws, { type: 'user', distinct_id: distinctId }, undefined, (primary) => ({ ok: true, value: mergeDocuments(primary, secondary) }), {
        create: false,
      });
    });
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

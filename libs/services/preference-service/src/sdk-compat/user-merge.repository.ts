import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { ProfileDocument } from '../profiles/profile-document';
import { StoredProfile } from '../profiles/profile-changes';
import { ProfileRepository } from '../profiles/profile.repository';

/** The write of a user merge (see UserMerge): both profiles in one transaction, through ProfileRepository's statements. */
@Injectable()
export class UserMergeRepository {
  constructor(
    @InjectDataSource('audience') private readonly db: DataSource,
    private readonly profiles: ProfileRepository,
  ) {}

  /**
   * In one transaction: reads user `fromId` (the secondary) and writes user `distinctId`'s
   * global profile as `combine` makes it from both, announced as ProfileRepository announces a
   * change. The secondary stays. A missing secondary is a 404 (short shape) naming
   * `from_user_id`, a missing primary the user's own 404; either way nothing is written.
   */
  async mergeInto(
    ws: AuthenticatedWorkspace,
    distinctId: string,
    fromId: string,
    combine: (primary: ProfileDocument, secondary: ProfileDocument) => ProfileDocument,
  ): Promise<StoredProfile> {
    return this.db.transaction(async (tx) => {
      let secondary: StoredProfile;
      try {
        secondary = await this.profiles.read(ws, { type: 'user', distinct_id: fromId }, undefined, tx);
      } catch (error) {
        if (error instanceof HeraldError && error.code === 'not_found') throw HeraldError.notFound(`from_user_id: [distinct_id: '${fromId}'] not found`, 'short');
        throw error;
      }
      return this.profiles.mutateIn(tx, ws, { type: 'user', distinct_id: distinctId }, undefined, (primary) => ({ ok: true, value: combine(primary, secondary) }), {
        create: false,
      });
    });
  }
}

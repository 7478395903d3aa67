import { Injectable } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { ScopedWorkspace, WorkspaceRepository } from './workspace.repository';

export { lockWorkspaceForWrites } from './workspace.repository';
export type { ScopedWorkspace } from './workspace.repository';

/**
 * Resolves `/v1/{workspace}/...` for the calling account. A workspace of another
 * account is indistinguishable from one that does not exist (404), so nothing
 * reveals what other accounts hold.
 */
@Injectable()
export class WorkspaceScope {
  constructor(private readonly workspaces: WorkspaceRepository) {}

  async resolve(accountId: string, slug: string): Promise<ScopedWorkspace> {
    const workspace = await this.workspaces.findOwned(accountId, slug);
    if (workspace === null) throw HeraldError.notFound(`workspace '${slug}' not found`);
    return workspace;
  }
}

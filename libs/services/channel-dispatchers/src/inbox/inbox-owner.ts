/**
 * Whose feed: a recipient's, and with `tenantId` only the messages sent for that tenant
 * (a trigger without a tenant is the `default` tenant's, as in the reference).
 */
export interface InboxOwner {
  readonly workspaceId: string;
  readonly distinctId: string;
  readonly tenantId?: string;
}

/** The tenant of a message whose trigger named none. */
export const DEFAULT_TENANT = 'default';

/** What an owner changes of one of its messages. `clicked` only ever sets: a click happened or it did not. */
export type InboxUpdate = { readonly seen?: boolean; readonly read?: boolean; readonly archived?: boolean; readonly clicked?: true };

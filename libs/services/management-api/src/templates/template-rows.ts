import { Channel, FieldError } from '@herald/contracts';
import { ApprovalStatus, VendorApproval } from './vendor-approval';

import { Mode } from '../http/query-params';

export { MODES, Mode } from '../http/query-params';

/** Template metadata as edited (draft) and as snapshotted into `live` by a commit. */
export interface TemplateMeta {
  readonly name: string;
  readonly description: string | null;
  readonly tags: string[];
  readonly enabled_channels: Channel[];
  /** A delivery whose content uses a variable missing from the data fails instead of rendering it empty. Absent in live snapshots older than the setting: false. */
  readonly strict?: boolean;
}

export interface TemplateRow extends TemplateMeta {
  readonly id: string;
  readonly workspace_id: string;
  readonly slug: string;
  readonly hash: string;
  readonly live: TemplateMeta | null;
  readonly live_hash: string | null;
  readonly version_no: number | null;
  readonly commit_message: string | null;
  readonly active_at: Date | null;
  /** Definition changes announced so far: the `version` of definition.changed. */
  readonly revision: number;
  readonly created_at: Date;
  readonly updated_at: Date;
}

export type VariantAction = 'Added' | 'Updated' | 'Unchanged';

export interface VariantRow {
  readonly template_id: string;
  readonly mode: Mode;
  readonly channel: Channel;
  readonly id: string;
  readonly tenant_id: string | null;
  readonly locale: string;
  readonly conditions: unknown[];
  readonly content: Record<string, unknown>;
  /** SHA-256 of the canonical JSON of `content`. */
  readonly hash: string;
  /** Content problems (paths relative to the content); a variant with any cannot go live. */
  readonly errors: FieldError[];
  readonly has_error: boolean;
  readonly seq_no: number;
  readonly needs_vendor_approval: boolean;
  readonly approval_status: ApprovalStatus;
  readonly approval_at: Date | string | null;
  readonly discard_comment: string | null;
  readonly vendor_approvals: VendorApproval[];
  readonly action: VariantAction | null;
  readonly created_at: Date | string;
  readonly updated_at: Date | string;
}

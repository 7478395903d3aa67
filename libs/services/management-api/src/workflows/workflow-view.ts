import { ValidationResult } from '@herald/workflow';

export const WORKFLOW_SCHEMA_URL = 'https://schema.suprsend.com/workflow/v1/schema.json';

/** The fields of interface 2.2 a client writes; kept as written in each version. */
export const WRITABLE_FIELDS = [
  'name',
  'description',
  'category',
  'tags',
  'ratelimit',
  'conditions',
  'trigger_type',
  'trigger_events',
  'override_recipients_type',
  'override_recipients_user_expr',
  'override_recipients_single_object_fields_expr',
  'override_actor_user_expr',
  'override_tenant_expr',
  'payload_schema',
  'tree',
] as const;

export type WorkflowDocument = Partial<Record<(typeof WRITABLE_FIELDS)[number], unknown>>;

export interface WorkflowVersionRow {
  slug: string;
  is_enabled: boolean;
  created_at: Date;
  last_executed_at: Date | null;
  version_no: number;
  status: 'draft' | 'active' | 'archived';
  document: WorkflowDocument;
  validation_result: ValidationResult;
  hash: string;
  commit_message: string | null;
  updated_by: { name: string; email: string } | null;
  updated_at: Date;
  active_at: Date | null;
}

/** Interface 2.2. `status` is `draft` for a draft version, else `active` or `inactive` as the workflow is enabled. */
export function workflowView(row: WorkflowVersionRow): Record<string, unknown> {
  const d = row.document;
  return {
    $schema: WORKFLOW_SCHEMA_URL,
    slug: row.slug,
    is_enabled: row.is_enabled,
    created_at: row.created_at,
    last_executed_at: row.last_executed_at,
    name: d.name ?? null,
    description: d.description ?? null,
    updated_at: row.updated_at,
    commit_message: row.commit_message,
    hash: row.hash,
    status: row.status === 'draft' ? 'draft' : row.is_enabled ? 'active' : 'inactive',
    category: d.category ?? null,
    tags: d.tags ?? [],
    ratelimit: d.ratelimit ?? null,
    conditions: d.conditions ?? [],
    trigger_type: d.trigger_type ?? null,
    trigger_events: d.trigger_events ?? [],
    override_recipients_type: d.override_recipients_type ?? null,
    override_recipients_user_expr: d.override_recipients_user_expr ?? null,
    override_recipients_single_object_fields_expr: d.override_recipients_single_object_fields_expr ?? null,
    override_actor_user_expr: d.override_actor_user_expr ?? null,
    override_tenant_expr: d.override_tenant_expr ?? null,
    payload_schema: d.payload_schema ?? null,
    active_at: row.status === 'draft' ? null : row.active_at,
    updated_by: row.updated_by,
    tree: d.tree ?? { nodes: [] },
    validation_result: row.validation_result,
    version_no: row.version_no,
  };
}

/** Only the writable fields, as written (unknown fields are dropped, as the API ignores them). */
export function documentOf(body: Record<string, unknown>): WorkflowDocument {
  const document: WorkflowDocument = {};
  for (const field of WRITABLE_FIELDS) if (body[field] !== undefined) document[field] = body[field];
  return document;
}

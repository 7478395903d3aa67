import { Static, Type } from '@sinclair/typebox';
import { FormattedString, FieldError, MAX_LISTED_ERRORS, NormalisedTrigger, Nullable, ParseResult, Present } from '@herald/contracts';
import { ingestSchemas } from './ingest-checks';
import { ActorSchema, AttachmentHolder, IdString, RecipientSchema, actorOf, attachmentsOf, recipientOf, withoutUndefined } from './recipient-schemas';
import { contextTenantErrors } from './tenant-context';

/** Interface section 8 and decisions.md: at most 100 recipients per trigger. */
export const MAX_RECIPIENTS = 100;

/**
 * One workflow trigger object (interface 2.1). Unknown top-level fields are allowed
 * (the SDKs add `cancellation_key`, `metadata` and others).
 */
export const WorkflowTriggerSchema = ingestSchemas.named(
  'WorkflowTrigger',
  Type.Object({
  workflow: Present(FormattedString('workflow_slug', { description: 'Workflow slug: 1 to 255 characters of a-z, 0-9, - and _' })),
  recipients: Present(Type.Array(RecipientSchema, { minItems: 1, maxItems: MAX_RECIPIENTS, 'x-noun': 'recipient' })),
  actor: Nullable(ActorSchema),
  data: Nullable(AttachmentHolder),
  tenant_id: Nullable(IdString),
  $idempotency_key: Nullable(FormattedString('idempotency_key', { description: '1 to 255 characters after trimming' })),
  }),
);
export type WorkflowTriggerBody = Static<typeof WorkflowTriggerSchema>;

const triggerParser = ingestSchemas.parser(WorkflowTriggerSchema);

/**
 * Validates one workflow trigger and normalises it for fan-out. Every failing field is
 * reported by its path: the schema's, and the one rule across fields, `$context.tenant_id`
 * equal to the top-level tenant_id (decisions.md: a mismatch is a 400 and no run).
 */
export function validateTrigger(body: unknown): ParseResult<NormalisedTrigger> {
  const errors = withTenantErrors(triggerParser.errors(body), contextTenantErrors(body, 'recipients'));
  if (errors.length > 0) return { ok: false, errors };
  const trigger = body as WorkflowTriggerBody;
  return {
    ok: true,
    value: withoutUndefined({
      workflow: trigger.workflow,
      recipients: trigger.recipients.map(recipientOf),
      actor: trigger.actor == null ? undefined : actorOf(trigger.actor),
      data: { ...trigger.data },
      attachments: attachmentsOf(trigger.data),
      tenant_id: trigger.tenant_id ?? undefined,
      idempotency_key: trigger.$idempotency_key?.trim(),
    }),
  };
}

/** The schema's errors, then the tenant rule's, unless the schema's list is already full (MAX_LISTED_ERRORS). */
export function withTenantErrors(schemaErrors: FieldError[], tenantErrors: FieldError[]): FieldError[] {
  return schemaErrors.length >= MAX_LISTED_ERRORS ? schemaErrors : [...schemaErrors, ...tenantErrors].slice(0, MAX_LISTED_ERRORS);
}

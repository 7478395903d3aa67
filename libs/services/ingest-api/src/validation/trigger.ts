import { NormalisedTrigger, ParseResult, Recipient } from '@herald/contracts';
import { readAttachments } from './attachments';
import { WORKFLOW_SLUG_FORMAT } from './formats';
import { Issues } from './issues';
import { ObjectReader, withoutUndefined } from './json-reader';
import { readActor, readRecipient } from './recipient';
import { readIdempotencyKey, readTenantId } from './shared-fields';

/** Interface section 8 and decisions.md: at most 100 recipients per trigger. */
export const MAX_RECIPIENTS = 100;

/**
 * Validates one workflow trigger object (interface 2.1) and normalises it for fan-out.
 * Every failing field is reported by its path; unknown top-level fields are ignored
 * (the SDKs add `cancellation_key`, `metadata` and others).
 */
export function validateTrigger(body: unknown): ParseResult<NormalisedTrigger> {
  const issues = new Issues();
  const root = ObjectReader.of(body, '', issues);
  if (root === undefined) return { ok: false, errors: issues.list() };

  const workflow = root.string('workflow', { required: true, nonBlank: true, format: WORKFLOW_SLUG_FORMAT });
  const tenant = readTenantId(root);
  const idempotency_key = readIdempotencyKey(root);
  const recipients = root.list<Recipient>('recipients', (value, path) => readRecipient(value, path, issues, tenant), {
    required: true,
    min: 1,
    max: MAX_RECIPIENTS,
    noun: 'recipient',
  });
  const actorValue = root.value('actor');
  const actor = actorValue === undefined ? undefined : readActor(actorValue, root.pathOf('actor'), issues, tenant);
  const dataReader = root.object('data');
  const attachments = dataReader === undefined ? [] : readAttachments(dataReader);

  if (!issues.isEmpty || workflow === undefined || recipients === undefined) return { ok: false, errors: issues.list() };
  return {
    ok: true,
    value: withoutUndefined({
      workflow,
      recipients,
      actor,
      data: { ...dataReader?.source },
      attachments,
      tenant_id: tenant.tenant_id,
      idempotency_key,
    }),
  };
}

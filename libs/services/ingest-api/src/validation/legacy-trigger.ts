import { Channel, NormalisedTrigger, ParseResult, Recipient } from '@herald/contracts';
import { DynamicDelivery, dynamicWorkflow, isDuration } from '@herald/workflow';
import { readAttachments } from './attachments';
import { readChannel } from './channel-identities';
import { Issues } from './issues';
import { ObjectReader, isRecord, withoutUndefined } from './json-reader';
import { readRecipient } from './recipient';
import { readIdempotencyKey } from './shared-fields';
import { MAX_RECIPIENTS } from './trigger';

/** SuprSend's name for the `interacted` status in `delivery.success`. */
const SUCCESS_ALIASES: Readonly<Record<string, string>> = { interaction: 'interacted', interacted: 'interacted', delivered: 'delivered', seen: 'seen' };

/**
 * Validates a legacy "dynamic workflow" body (`POST /{workspace_key}/trigger/`, reference
 * `dynamic-workflow-trigger`, the SDKs' `trigger_workflow`/`triggerWorkflow` and bulk
 * workflows): `name`, `template`, `notification_category`, `users[]` (recipients as in
 * `/trigger/`, plus `$preferred_language`), and optionally `data`, `delay`
 * (`XXdXXhXXmXXs` or seconds), `trigger_at`, `delivery`, `tenant_id` (or the older
 * `brand_id`), `$idempotency_key`. It becomes a trigger carrying its own single-step workflow.
 */
export function validateLegacyTrigger(body: unknown): ParseResult<NormalisedTrigger> {
  const issues = new Issues();
  const root = ObjectReader.of(body, '', issues);
  if (root === undefined) return { ok: false, errors: issues.list() };
  const name = root.string('name', { required: true, nonBlank: true });
  const template = root.string('template', { required: true, nonBlank: true });
  const notification_category = root.string('notification_category', { required: true, nonBlank: true });
  // brand_id is the SDKs' older name of tenant_id; tenant_id wins when both are sent.
  const tenant_id = root.string('tenant_id', { nonBlank: true }) ?? root.string('brand_id', { nonBlank: true });
  const tenant = { tenant_id, valid: tenant_id !== undefined || !(root.has('tenant_id') || root.has('brand_id')) };
  const idempotency_key = readIdempotencyKey(root);
  const recipients = root.list<Recipient>('users', (value, path) => readRecipient(withLocale(value), path, issues, tenant), {
    required: true,
    min: 1,
    max: MAX_RECIPIENTS,
    noun: 'user',
  });
  const dataReader = root.object('data');
  const attachments = dataReader === undefined ? [] : readAttachments(dataReader);
  const delay = readDelay(root, 'delay');
  const trigger_at = root.string('trigger_at');
  if (trigger_at !== undefined && Number.isNaN(Date.parse(trigger_at))) root.report('trigger_at', 'must be an ISO 8601 date-time');
  const delivery = readDelivery(root);
  if (!issues.isEmpty || name === undefined || template === undefined || notification_category === undefined || recipients === undefined) {
    return { ok: false, errors: issues.list() };
  }
  const inline_workflow = dynamicWorkflow(
    withoutUndefined({ name, template, notification_category, delay, trigger_at: trigger_at === undefined ? undefined : new Date(trigger_at).toISOString(), delivery }),
  );
  return {
    ok: true,
    value: withoutUndefined({ workflow: name, recipients, data: { ...dataReader?.source }, attachments, tenant_id, idempotency_key, inline_workflow }),
  };
}

/** The legacy user's `$preferred_language` is `$locale` (as identity events store it), unless both are sent. */
function withLocale(value: unknown): unknown {
  if (!isRecord(value) || !Object.hasOwn(value, '$preferred_language') || Object.hasOwn(value, '$locale')) return value;
  const { $preferred_language, ...rest } = value;
  return { ...rest, $locale: $preferred_language };
}

function readDelay(reader: ObjectReader, key: string): string | undefined {
  const value = reader.value(key);
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return `${value}s`;
  if (typeof value === 'string' && /^\d+$/.test(value)) return `${value}s`;
  if (typeof value === 'string' && isDuration(value)) return value;
  reader.report(key, 'must be a duration like 1d2h30m10s, or a number of seconds');
  return undefined;
}

function readDelivery(root: ObjectReader): DynamicDelivery | undefined {
  const delivery = root.object('delivery');
  if (delivery === undefined) return undefined;
  const smart = delivery.boolean('smart') ?? false;
  const successText = delivery.string('success', { nonBlank: true });
  // A status SuprSend knows, or else the name of the user's own success event.
  const status = successText === undefined ? undefined : SUCCESS_ALIASES[successText];
  const time_to_live = readDelay(delivery, 'time_to_live');
  if (time_to_live === '0s') delivery.report('time_to_live', 'must be longer than zero');
  const mandatory_channels = delivery.list<Channel>('mandatory_channels', readChannel);
  return withoutUndefined({
    smart,
    success: status ?? successText,
    success_is_event: successText !== undefined && status === undefined ? true : undefined,
    time_to_live,
    mandatory_channels,
  });
}


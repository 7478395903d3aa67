import { Channel, JsonRecord, ParseResult } from '@herald/contracts';
import { isDuration } from '@herald/workflow';
import { readChannel } from './channel-identities';
import { Issues } from './issues';
import { ObjectReader, withoutUndefined } from './json-reader';
import { readIdempotencyKey, readTenantId } from './shared-fields';

export interface NormalisedBroadcast {
  readonly list_id: string;
  readonly template: string;
  readonly notification_category: string;
  readonly channels?: readonly Channel[];
  readonly data: JsonRecord;
  /** A fixed duration; a number of seconds is turned into one. */
  readonly delay?: string;
  readonly trigger_at?: string;
  readonly tenant_id?: string;
  readonly idempotency_key?: string;
}

/**
 * Validates a `POST /{workspace_key}/broadcast/` body (reference `trigger-broadcast`):
 * `list_id`, `template`, `notification_category`, and optionally `channels`, `data`,
 * `delay` (`XXdXXhXXmXXs` or seconds), `trigger_at` (ISO 8601), `tenant_id`,
 * `$idempotency_key`. Unknown fields (`$insert_id`, `$time`, `brand_id`) are ignored.
 */
export function validateBroadcast(body: unknown): ParseResult<NormalisedBroadcast> {
  const issues = new Issues();
  const root = ObjectReader.of(body, '', issues);
  if (root === undefined) return { ok: false, errors: issues.list() };
  const list_id = root.string('list_id', { required: true, nonBlank: true });
  const template = root.string('template', { required: true, nonBlank: true });
  const notification_category = root.string('notification_category', { required: true, nonBlank: true });
  const channels = root.list('channels', readChannel);
  const data = root.object('data');
  const delay = readDelay(root);
  const trigger_at = root.string('trigger_at');
  if (trigger_at !== undefined && Number.isNaN(Date.parse(trigger_at))) root.report('trigger_at', 'must be an ISO 8601 date-time');
  const { tenant_id } = readTenantId(root);
  const idempotency_key = readIdempotencyKey(root);
  if (!issues.isEmpty || list_id === undefined || template === undefined || notification_category === undefined) return { ok: false, errors: issues.list() };
  return {
    ok: true,
    value: withoutUndefined({
      list_id,
      template,
      notification_category,
      channels,
      data: { ...data?.source },
      delay,
      trigger_at: trigger_at === undefined ? undefined : new Date(trigger_at).toISOString(),
      tenant_id,
      idempotency_key,
    }),
  };
}

function readDelay(root: ObjectReader): string | undefined {
  const value = root.value('delay');
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return `0d0h0m${value}s`;
  if (typeof value === 'string' && /^\d+$/.test(value)) return `0d0h0m${value}s`;
  if (typeof value === 'string' && isDuration(value)) return value;
  root.report('delay', 'must be a duration like 0d1h30m0s, or a number of seconds');
  return undefined;
}

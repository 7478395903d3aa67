import { Static, Type } from '@sinclair/typebox';
import { Channel, FormattedString, JsonRecord, Nullable, ParseResult, Present } from '@herald/contracts';
import { ingestSchemas } from './ingest-checks';
import { ChannelName, IdString, withoutUndefined } from './recipient-schemas';

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
 * A `POST /{workspace_key}/broadcast/` body (reference `trigger-broadcast`). Unknown
 * fields (`$insert_id`, `$time`, `brand_id`) are allowed.
 */
export const BroadcastSchema = ingestSchemas.named(
  'Broadcast',
  Type.Object({
    list_id: Present(IdString),
    template: Present(FormattedString('non_blank')),
    notification_category: Present(FormattedString('non_blank')),
    channels: Nullable(Type.Array(ChannelName)),
    data: Nullable(Type.Object({})),
    delay: Nullable(Type.Unsafe<string | number>({ 'x-check': 'broadcast_delay', description: '`XXdXXhXXmXXs`, or seconds' })),
    trigger_at: Nullable(FormattedString('storable_date_time', { description: 'ISO 8601 date-time' })),
    tenant_id: Nullable(IdString),
    $idempotency_key: Nullable(FormattedString('idempotency_key', { description: '1 to 255 characters after trimming' })),
  }),
);
type BroadcastBody = Static<typeof BroadcastSchema>;

const broadcastParser = ingestSchemas.parser(BroadcastSchema);

/** Validates and normalises a broadcast: a delay in seconds becomes a duration, `trigger_at` UTC ISO 8601. */
export function validateBroadcast(body: unknown): ParseResult<NormalisedBroadcast> {
  const parsed = broadcastParser.parse(body);
  if (!parsed.ok) return parsed;
  const broadcast: BroadcastBody = parsed.value;
  return {
    ok: true,
    value: withoutUndefined({
      list_id: broadcast.list_id,
      template: broadcast.template,
      notification_category: broadcast.notification_category,
      channels: broadcast.channels ?? undefined,
      data: { ...broadcast.data },
      delay: broadcast.delay == null ? undefined : typeof broadcast.delay === 'number' || /^\d+$/.test(broadcast.delay) ? `0d0h0m${broadcast.delay}s` : broadcast.delay,
      trigger_at: broadcast.trigger_at == null ? undefined : new Date(broadcast.trigger_at).toISOString(),
      tenant_id: broadcast.tenant_id ?? undefined,
      idempotency_key: broadcast.$idempotency_key?.trim(),
    }),
  };
}

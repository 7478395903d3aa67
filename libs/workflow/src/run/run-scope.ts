import { JsonRecord, Recipient, UserRecipient } from '@herald/contracts';
import { RunContext, StoredProfile, TenantContext } from './run-context';
import { LiveRun } from './run-state';

/**
 * What expressions see (decisions.md): the run's data as `.` (jq) and `data` (Jsonnet),
 * with `$recipient`, `$actor`, `$tenant`, `$batched_events` and `$batched_events_count`
 * beside the trigger's own fields; jq also gets `$recipient`, `$actor` and `$tenant`
 * as variables. `$batched_events` and `$batched_events_count` are those of the latest
 * batch or digest the run passed (none before). `future_event` is set only while a
 * wait-until's event_conditions are evaluated on an arriving event.
 */
export interface RunScope {
  readonly data: JsonRecord;
  readonly recipient: JsonRecord;
  readonly actor: JsonRecord;
  readonly tenant: JsonRecord;
  /** `$workflow` in branch conditions. */
  readonly workflow: JsonRecord;
  /** The jq variables (names without `$`). */
  readonly variables: Readonly<Record<string, unknown>>;
  /** `$future_event` in wait-until event_conditions: the arriving event's properties. */
  readonly future_event?: JsonRecord;
}

export function runScope(run: LiveRun, context: RunContext): RunScope {
  const recipient = recipientView(run.started.recipient, context.recipient_profile);
  const actor = actorView(run.actor);
  const tenant = tenantView(run.tenant_id, context.tenant);
  const data = {
    ...run.data,
    $recipient: recipient,
    $actor: actor,
    $tenant: tenant,
    $batched_events: run.batched?.events ?? [],
    $batched_events_count: run.batched?.count ?? 0,
  };
  const { definition, workflow } = run.started;
  return {
    data,
    recipient,
    actor,
    tenant,
    workflow: { slug: workflow.slug, version: workflow.version, name: definition.name, category: definition.category },
    variables: { recipient, actor, tenant },
  };
}

/**
 * `$recipient`: the stored profile's properties, overlaid by what the trigger sent
 * inline (it is newer: ingest publishes the profile update before the trigger, but the
 * engine's read model may not have it yet), plus the identity, `$locale` and `$timezone`.
 */
export function recipientView(recipient: Recipient, profile: StoredProfile | undefined): JsonRecord {
  const identity = recipient.kind === 'user' ? { distinct_id: recipient.distinct_id } : { object_type: recipient.object_type, id: recipient.id };
  const locale = recipientLocale(recipient, profile);
  const timezone = recipient.timezone ?? profile?.timezone;
  return {
    ...profile?.properties,
    ...recipient.properties,
    ...identity,
    ...(locale === undefined ? {} : { $locale: locale }),
    ...(timezone === undefined ? {} : { $timezone: timezone }),
  };
}

export function recipientLocale(recipient: Recipient, profile: StoredProfile | undefined): string | undefined {
  return recipient.locale ?? profile?.locale;
}

function actorView(actor: UserRecipient | undefined): JsonRecord {
  return actor === undefined ? {} : { ...actor.properties, distinct_id: actor.distinct_id };
}

/** The context's tenant counts only if it is the run's (it may predate a tenant override). */
function tenantView(tenantId: string | undefined, tenant: TenantContext | undefined): JsonRecord {
  if (tenantId === undefined) return {};
  return tenant?.tenant_id === tenantId ? { ...tenant.properties, tenant_id: tenantId } : { tenant_id: tenantId };
}

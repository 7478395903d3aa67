import { Static, Type } from '@sinclair/typebox';
import { FormattedString, NormalisedTrigger, Nullable, ParseResult, Present } from '@herald/contracts';
import { DynamicDelivery, dynamicWorkflow } from '@herald/workflow';
import { ingestSchemas } from './ingest-checks';
import { AttachmentHolder, ChannelName, IdString, RecipientSchema, attachmentsOf, recipientOf, withoutUndefined } from './recipient-schemas';
import { contextTenantErrors } from './tenant-context';
import { MAX_RECIPIENTS, withTenantErrors } from './trigger';

/** SuprSend's name for the `interacted` status in `delivery.success`. */
const SUCCESS_ALIASES: Readonly<Record<string, string>> = { interaction: 'interacted', interacted: 'interacted', delivered: 'delivered', seen: 'seen' };

const LegacyDelay = Type.Unsafe<string | number>({ 'x-check': 'legacy_delay', description: '`XXdXXhXXmXXs`, or seconds' });

/** A recipient as `/trigger/` takes it, and a user's `$preferred_language`. */
const LegacyUserSchema = Type.Unsafe<Static<typeof RecipientSchema> & { readonly $preferred_language?: string | null }>({
  allOf: [RecipientSchema, { properties: { $preferred_language: Nullable(FormattedString('locale')) } }],
});

/**
 * A legacy "dynamic workflow" body (`POST /{workspace_key}/trigger/`, reference
 * `dynamic-workflow-trigger`, the SDKs' `trigger_workflow`/`triggerWorkflow` and bulk
 * workflows). Its users are recipients as in `/trigger/`, plus `$preferred_language`
 * (the locale unless `$locale` is sent).
 */
export const DynamicWorkflowTriggerSchema = ingestSchemas.named(
  'DynamicWorkflowTrigger',
  Type.Object(
    {
      name: Present(FormattedString('non_blank', { description: 'Names the workflow (and its runs in the message log)' })),
      template: Present(FormattedString('non_blank', { description: 'Template slug' })),
      notification_category: Present(FormattedString('non_blank', { description: 'Preference category' })),
      users: Present(
        Type.Array(LegacyUserSchema, {
          minItems: 1,
          maxItems: MAX_RECIPIENTS,
          'x-noun': 'user',
        }),
      ),
      data: Nullable(AttachmentHolder),
      delay: Nullable(LegacyDelay),
      trigger_at: Nullable(FormattedString('storable_date_time')),
      delivery: Nullable(
        Type.Object({
          smart: Nullable(Type.Boolean({ default: false })),
          success: Nullable(FormattedString('non_blank', { description: '`delivered`, `seen`, `interaction` (or `interacted`), or the name of your own success event' })),
          time_to_live: Nullable(Type.Unsafe<string | number>({ 'x-check': 'legacy_delay', not: { enum: [0, '0', '0s'] }, 'x-message': 'must be longer than zero' })),
          mandatory_channels: Nullable(Type.Array(ChannelName)),
        }),
      ),
      tenant_id: Nullable(IdString),
      $idempotency_key: Nullable(FormattedString('idempotency_key', { description: '1 to 255 characters after trimming' })),
    },
    {
      // brand_id is the SDKs' older name of tenant_id; tenant_id wins when both are sent, and brand_id is then not read.
      if: { required: ['tenant_id'], properties: { tenant_id: { type: 'string' } } },
      else: { properties: { brand_id: Nullable(IdString) } },
    },
  ),
);
type DynamicWorkflowTriggerBody = Static<typeof DynamicWorkflowTriggerSchema> & { readonly brand_id?: string | null };

const legacyParser = ingestSchemas.parser(DynamicWorkflowTriggerSchema);

/**
 * Validates a legacy dynamic-workflow trigger: it becomes a trigger carrying its own
 * single-step workflow (an optional delay or trigger_at, then the template).
 */
export function validateLegacyTrigger(body: unknown): ParseResult<NormalisedTrigger> {
  const errors = withTenantErrors(legacyParser.errors(body), contextTenantErrors(body, 'users', ['tenant_id', 'brand_id']));
  if (errors.length > 0) return { ok: false, errors };
  const trigger = body as DynamicWorkflowTriggerBody;
  const trigger_at = trigger.trigger_at == null ? undefined : new Date(trigger.trigger_at).toISOString();
  const inline_workflow = dynamicWorkflow(
    withoutUndefined({
      name: trigger.name,
      template: trigger.template,
      notification_category: trigger.notification_category,
      delay: delayOf(trigger.delay),
      trigger_at,
      delivery: trigger.delivery == null ? undefined : deliveryOf(trigger.delivery),
    }),
  );
  return {
    ok: true,
    value: withoutUndefined({
      workflow: trigger.name,
      recipients: trigger.users.map((user) => recipientOf(withLocale(user))),
      data: { ...trigger.data },
      attachments: attachmentsOf(trigger.data),
      tenant_id: trigger.tenant_id ?? trigger.brand_id ?? undefined,
      idempotency_key: trigger.$idempotency_key?.trim(),
      inline_workflow,
    }),
  };
}

/** The legacy user's `$preferred_language` is `$locale` (as identity events store it), unless both are sent. */
function withLocale<T>(user: T): T {
  if (typeof user !== 'object' || user === null || !Object.hasOwn(user, '$preferred_language') || Object.hasOwn(user, '$locale')) return user;
  const { $preferred_language, ...rest } = user as Record<string, unknown>;
  return { ...rest, $locale: $preferred_language } as T;
}

/** A valid delay: seconds (a number or digits) become `<n>s`; a duration stays as sent. */
function delayOf(value: string | number | null | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'number' || /^\d+$/.test(value) ? `${value}s` : value;
}

function deliveryOf(delivery: NonNullable<DynamicWorkflowTriggerBody['delivery']>): DynamicDelivery {
  const successText = delivery.success ?? undefined;
  // A status SuprSend knows, or else the name of the user's own success event.
  const status = successText === undefined ? undefined : SUCCESS_ALIASES[successText];
  return withoutUndefined({
    smart: delivery.smart ?? false,
    success: status ?? successText,
    success_is_event: successText !== undefined && status === undefined ? true : undefined,
    time_to_live: delayOf(delivery.time_to_live),
    mandatory_channels: delivery.mandatory_channels ?? undefined,
  });
}

import { CHANNELS, Channel, DeliveryRequested, Recipient } from '@herald/contracts';
import { SendNode, SendSmartChannelRoutingNode, SingleChannelSendNodeType } from '../definition';
import { assertNever } from '@herald/decider';
import { Result, fail, jqOutputs, ok, quote } from './evaluate';
import { NodePath, deliveryId, nodeAt } from './node-path';
import { RunPorts } from './ports';
import { RunContext } from './run-context';
import { DeliveryRequestedEvent, DeliverySkipped, SkipReason } from './run-events';
import { RunScope, recipientLocale } from './run-scope';
import { LiveRun } from './run-state';
import { selectVariant } from './variant-selection';

/** The channels of the single-channel send nodes; mobile push covers both platforms. */
export const SEND_NODE_CHANNELS: Readonly<Record<SingleChannelSendNodeType, readonly Channel[]>> = {
  send_email: ['email'],
  send_sms: ['sms'],
  send_whatsapp: ['whatsapp'],
  send_inbox: ['inbox'],
  send_mobile_push: ['androidpush', 'iospush'],
  send_webpush: ['webpush'],
  send_slack: ['slack'],
  send_ms_teams: ['ms_teams'],
};

export interface SendStep {
  readonly node: SendNode;
  readonly path: NodePath;
  readonly run: LiveRun;
  readonly context: RunContext;
  readonly scope: RunScope;
  readonly ports: RunPorts;
  readonly now: Date;
}

type SendEvent = DeliveryRequestedEvent | DeliverySkipped;

/**
 * The deliveries of a send node, one event per channel considered: a
 * `delivery.requested.v1`, or a `delivery.skipped.v1` saying why not. A channel is
 * sent on when it is in the recipient's `$channels` (if given), the recipient has an
 * identity on it, the PreferencePolicy allows it and the template has a variant for it.
 *
 * Multi-channel sends on every channel that passes. Smart routing (kept simple for
 * now) sends on each `mandatory_channels` entry that passes, and on the first of the
 * other channels, in the node's order, that passes; the rest are skipped as
 * `not_routed`. When the routed channel then fails for good, decideRoutingFallback sends
 * the next one. It does not yet wait `ttl_value` for `success` before trying the next
 * channel.
 */
export function decideSend(step: SendStep): Result<readonly SendEvent[]> {
  const channels = nodeChannels(step);
  if (!channels.ok) return channels;
  if (step.node.node_type !== 'send_smart_channel_routing') return collect(channels.value.map((channel) => considerChannel(step, channel)));
  return smartRouting(step, step.node, channels.value);
}

function smartRouting(step: SendStep, node: SendSmartChannelRoutingNode, channels: readonly Channel[]): Result<readonly SendEvent[]> {
  const mandatory = node.mandatory_channels ?? [];
  const events: Result<SendEvent>[] = mandatory.map((channel) => considerChannel(step, channel));
  let routedTo: Channel | undefined;
  for (const channel of channels.filter((candidate) => !mandatory.includes(candidate))) {
    if (routedTo !== undefined) {
      events.push(ok(skipped(step, channel, 'not_routed', `smart routing sent on ${routedTo}`)));
      continue;
    }
    const event = considerChannel(step, channel);
    if (event.ok && event.value.type === 'delivery.requested.v1') routedTo = channel;
    events.push(event);
  }
  return collect(events);
}

/**
 * Smart routing's fallback: the delivery `failedDeliveryId` of a smart-routing node's
 * routed (not mandatory) channel failed for good, so the node's next channel in its
 * order that passes now (identity, preference, variant) is sent. Nothing when the
 * delivery is not such a one, or a later channel was requested already (a fallback
 * happened). Channels that do not pass were recorded `not_routed` when the node ran.
 */
export function decideRoutingFallback(step: Omit<SendStep, 'node' | 'path'>, failedDeliveryId: string): Result<readonly SendEvent[]> {
  const { run } = step;
  const prefix = `${run.started.run_id}:delivery:`;
  if (!failedDeliveryId.startsWith(prefix)) return ok([]);
  const rest = failedDeliveryId.slice(prefix.length);
  const separator = rest.lastIndexOf(':');
  const path = rest.slice(0, separator).split('.').map(Number);
  const failedChannel = rest.slice(separator + 1);
  const node = nodeAt(run.started.definition.tree, path);
  if (node?.node_type !== 'send_smart_channel_routing') return ok([]);
  const sendStep: SendStep = { ...step, node, path };
  const channels = nodeChannels(sendStep);
  if (!channels.ok) return channels;
  const mandatory: readonly string[] = node.mandatory_channels ?? [];
  const routable = channels.value.filter((channel) => !mandatory.includes(channel));
  const failedAt = routable.findIndex((channel) => channel === failedChannel);
  if (failedAt < 0) return ok([]);
  for (const channel of routable.slice(failedAt + 1)) {
    if (run.deliveries[deliveryId(run.started.run_id, path, channel)] !== undefined) return ok([]);
    const event = considerChannel(sendStep, channel);
    if (!event.ok) return event;
    if (event.value.type === 'delivery.requested.v1') return ok([event.value]);
  }
  return ok([]);
}

function nodeChannels(step: SendStep): Result<readonly Channel[]> {
  const { node } = step;
  switch (node.node_type) {
    case 'send_multi_channel':
    case 'send_smart_channel_routing':
      return node.channels_expr !== undefined ? channelsFromExpression(step, node.channels_expr) : ok(node.channels?.length ? node.channels : CHANNELS);
    case 'send_email':
    case 'send_sms':
    case 'send_whatsapp':
    case 'send_inbox':
    case 'send_mobile_push':
    case 'send_webpush':
    case 'send_slack':
    case 'send_ms_teams':
      return ok(SEND_NODE_CHANNELS[node.node_type]);
    default:
      return assertNever(node);
  }
}

/** `channels_expr`: jq yielding channel names, as several outputs or arrays of them. */
function channelsFromExpression(step: SendStep, filter: string): Result<readonly Channel[]> {
  const outputs = jqOutputs(step.ports.expressions, filter, step.scope);
  if (!outputs.ok) return fail(`channels_expr: ${outputs.error}`);
  const channels: Channel[] = [];
  for (const value of outputs.value.flat()) {
    const channel = CHANNELS.find((known) => known === value);
    if (channel === undefined) return fail(`channels_expr gave ${quote(value)}, not a channel (${CHANNELS.join(', ')})`);
    if (!channels.includes(channel)) channels.push(channel);
  }
  return ok(channels);
}

function considerChannel(step: SendStep, channel: Channel): Result<SendEvent> {
  const { run, context, ports } = step;
  const recipient = run.started.recipient;
  if (recipient.only_channels !== undefined && !recipient.only_channels.includes(channel)) {
    return ok(skipped(step, channel, 'not_in_recipient_channels', `$channels is ${recipient.only_channels.join(', ')}`));
  }
  const identities = channelIdentities(recipient, context, channel);
  if (identities.length === 0) return ok(skipped(step, channel, 'no_identity', `the recipient has no ${channel} identity`));
  const category = run.started.definition.category;
  const decision = ports.preferences.evaluate({
    snapshot: context.preferences,
    category,
    channel,
    ...(run.tenant_id === undefined ? {} : { tenant_id: run.tenant_id }),
  });
  if (!decision.allowed) return ok(skipped(step, channel, 'preference', decision.reason));
  const locale = recipientLocale(recipient, context.recipient_profile);
  const slug = step.node.template;
  const variant = selectVariant(
    context.templates[slug],
    { channel, ...(run.tenant_id === undefined ? {} : { tenant_id: run.tenant_id }), ...(locale === undefined ? {} : { locale }) },
    step.scope,
    ports.expressions,
  );
  if (!variant.ok) return fail(`template ${slug}: ${variant.error}`);
  if (variant.value === undefined) return ok(skipped(step, channel, 'no_variant', `template ${slug} has no live ${channel} variant for this tenant and locale`));
  const chosen = variant.value;
  const delivery: DeliveryRequested = {
    delivery_id: deliveryId(run.started.run_id, step.path, channel),
    run_id: run.started.run_id,
    message_id: run.started.message_id,
    workspace_slug: run.started.workspace_slug,
    workflow: run.started.workflow,
    node_name: step.node.name,
    channel,
    recipient: deliveryRecipient(recipient, locale, recipient.timezone ?? context.recipient_profile?.timezone),
    destination: { identities },
    template: {
      slug,
      variant_id: chosen.id,
      ...(chosen.tenant_id === undefined || chosen.tenant_id === null ? {} : { tenant_id: chosen.tenant_id }),
      locale: chosen.locale,
      content: chosen.content,
      ...(context.templates[slug]?.strict === true ? { strict: true } : {}),
    },
    render_data: step.scope.data,
    ...(run.tenant_id === undefined ? {} : { tenant_id: run.tenant_id }),
    category,
    ...(decision.unsubscribable === true ? { unsubscribable: true } : {}),
    attachments: run.started.attachments,
    requested_at: step.now.toISOString(),
  };
  return ok({ type: 'delivery.requested.v1', path: step.path, delivery, preference: { snapshot: context.preferences, decision } });
}

/**
 * The recipient's identities on a channel: those sent inline with the trigger, else
 * the stored profile's. The inbox of a known user is its distinct_id when no inbox
 * id is given (the inbox API reads messages by distinct_id).
 */
export function channelIdentities(recipient: Recipient, context: RunContext, channel: Channel): readonly unknown[] {
  const inline = recipient.channels[channel] ?? [];
  if (inline.length > 0) return inline;
  const stored = context.recipient_profile?.channels[channel] ?? [];
  if (stored.length > 0) return stored;
  return channel === 'inbox' && recipient.kind === 'user' && recipient.distinct_id !== null ? [recipient.distinct_id] : [];
}

function deliveryRecipient(recipient: Recipient, locale: string | undefined, timezone: string | undefined): DeliveryRequested['recipient'] {
  const identity =
    recipient.kind === 'user'
      ? { kind: 'user' as const, ...(recipient.distinct_id === null ? {} : { distinct_id: recipient.distinct_id }) }
      : { kind: 'object' as const, object_type: recipient.object_type, id: recipient.id };
  return { ...identity, ...(locale === undefined ? {} : { locale }), ...(timezone === undefined ? {} : { timezone }) };
}

function skipped(step: SendStep, channel: Channel, reason: SkipReason, detail: string): DeliverySkipped {
  return { type: 'delivery.skipped.v1', path: step.path, channel, reason, detail };
}

function collect(results: readonly Result<SendEvent>[]): Result<readonly SendEvent[]> {
  const events: SendEvent[] = [];
  for (const result of results) {
    if (!result.ok) return result;
    events.push(result.value);
  }
  return ok(events);
}

import { CHANNELS } from '@herald/contracts';
import { ROUTING_BASES, ROUTING_SUCCESS_STATUSES, SendNodeType } from './definition-enums';
import { readDuration, readJq } from './expression-fields';
import { FieldReader, describeValues } from './field-reader';
import { readNodeBase } from './node-base';
import { TEMPLATE_SLUG } from './slugs';
import { DefinitionValidationContext } from './validation-context';
import { SendMultiChannelNode, SendNode, SendSmartChannelRoutingNode, SingleChannelSendNodeType } from './workflow-definition';

/**
 * Send nodes: a template that exists in the workspace; the multi-channel and smart
 * routing nodes also take channel lists (values from the channel enum) and a jq
 * channels_expr of at least 2 characters. Smart routing: ttl_value is a positive fixed
 * duration; success is a notification status unless success_is_event is true, then
 * any event name.
 */
export function validateSendNode(node_type: SendNodeType, fields: FieldReader, context: DefinitionValidationContext): SendNode | undefined {
  switch (node_type) {
    case 'send_multi_channel':
      return validateMultiChannel(fields, context);
    case 'send_smart_channel_routing':
      return validateSmartRouting(fields, context);
    default:
      return validateSingleChannel(node_type, fields, context);
  }
}

function validateSingleChannel(
  node_type: SingleChannelSendNodeType,
  fields: FieldReader,
  context: DefinitionValidationContext,
): SendNode | undefined {
  const base = readNodeBase(fields, node_type);
  const template = readTemplate(fields, context);
  return base && template !== undefined ? { ...base, template } : undefined;
}

function validateMultiChannel(fields: FieldReader, context: DefinitionValidationContext): SendMultiChannelNode | undefined {
  const base = readNodeBase(fields, 'send_multi_channel');
  const template = readTemplate(fields, context);
  const channels = fields.oneOfEach('channels', CHANNELS);
  const channels_expr = readJq(fields, 'channels_expr', context, { minLength: 2 });
  return base && template !== undefined ? { ...base, template, channels, channels_expr } : undefined;
}

function validateSmartRouting(fields: FieldReader, context: DefinitionValidationContext): SendSmartChannelRoutingNode | undefined {
  const base = readNodeBase(fields, 'send_smart_channel_routing');
  const template = readTemplate(fields, context);
  const channels = fields.oneOfEach('channels', CHANNELS);
  const channels_expr = readJq(fields, 'channels_expr', context, { minLength: 2 });
  const mandatory_channels = fields.oneOfEach('mandatory_channels', CHANNELS);
  const success_is_event = fields.boolean('success_is_event');
  const success = readSuccess(fields, success_is_event === true);
  const ttl_value = readDuration(fields, 'ttl_value', { positive: true });
  const routing_basis = fields.oneOf('routing_basis', ROUTING_BASES);
  if (base === undefined || template === undefined) return undefined;
  return { ...base, template, channels, channels_expr, mandatory_channels, success, success_is_event, ttl_value, routing_basis };
}

function readTemplate(fields: FieldReader, context: DefinitionValidationContext): string | undefined {
  const template = fields.string('template', { required: true });
  if (template === undefined) return undefined;
  if (!TEMPLATE_SLUG.test(template)) {
    fields.report('template', 'must be a template slug of 1 to 120 characters a-z, 0-9, - or _');
    return undefined;
  }
  if (context.templateExists(template)) return template;
  fields.report('template', `no template with slug "${template}"`);
  return undefined;
}

function readSuccess(fields: FieldReader, isEvent: boolean): string | undefined {
  if (isEvent) return fields.string('success', { required: true, maxLength: 255 });
  const success = fields.string('success');
  if (success === undefined || success === '') return undefined;
  if (ROUTING_SUCCESS_STATUSES.some((status) => status === success)) return success;
  fields.report('success', `must be one of ${describeValues(ROUTING_SUCCESS_STATUSES)} unless success_is_event is true`);
  return undefined;
}

import { SEND_NODE_TYPES } from './definition-enums';
import { BrokenCase, expectErrors, expectValid, multiChannel, sendEmail, smartRouting, withNode } from './testing/definition-fixtures';

const N = 'tree.nodes[0]';
const CHANNEL_ENUM = 'must be one of email, sms, inbox, androidpush, iospush, slack, ms_teams, webpush, whatsapp';
const SLUG = 'must be a template slug of 1 to 120 characters a-z, 0-9, - or _';
const JQ = 'invalid jq expression: unbalanced parentheses';

describe('send nodes', () => {
  const node = (node_type: string, over: Record<string, unknown> = {}) => withNode(sendEmail({ node_type, ...over }));

  it.each(SEND_NODE_TYPES)('%s needs a template', (node_type) => expectErrors(node(node_type, { template: undefined }), `${N}.template: is required`));

  it.each(SEND_NODE_TYPES)('%s needs a template that exists', (node_type) =>
    expectErrors(node(node_type, { template: 'farewell' }), `${N}.template: no template with slug "farewell"`),
  );

  it.each(SEND_NODE_TYPES)('%s accepts an existing template', (node_type) => expectValid(node(node_type)));

  const cases: readonly BrokenCase[] = [
    ['template is a slug: lower case', withNode(sendEmail({ template: 'Welcome' })), `${N}.template: ${SLUG}`],
    ['template is a slug: no blanks', withNode(sendEmail({ template: 'wel come' })), `${N}.template: ${SLUG}`],
    ['template is a slug: at most 120 characters', withNode(sendEmail({ template: 'w'.repeat(121) })), `${N}.template: ${SLUG}`],
    ['template must not be blank', withNode(sendEmail({ template: '' })), `${N}.template: must not be empty`],
    ['multi-channel channels must be an array', withNode(multiChannel({ channels: 'email' })), `${N}.channels: must be an array`],
    ['multi-channel channels enum', withNode(multiChannel({ channels: ['email', 'fax'] })), `${N}.channels[1]: ${CHANNEL_ENUM}`],
    ['multi-channel channels_expr is jq', withNode(multiChannel({ channels_expr: '.c(((' })), `${N}.channels_expr: ${JQ}`],
    ['multi-channel channels_expr at least 2 characters', withNode(multiChannel({ channels_expr: '.' })), `${N}.channels_expr: must be at least 2 characters`],
    ['smart routing channels enum', withNode(smartRouting({ channels: ['pager'] })), `${N}.channels[0]: ${CHANNEL_ENUM}`],
    ['smart routing mandatory_channels enum', withNode(smartRouting({ mandatory_channels: ['Email'] })), `${N}.mandatory_channels[0]: ${CHANNEL_ENUM}`],
    ['smart routing channels_expr is jq', withNode(smartRouting({ channels_expr: '(((' })), `${N}.channels_expr: ${JQ}`],
    ['smart routing ttl_value is a duration', withNode(smartRouting({ ttl_value: '1 hour' })), `${N}.ttl_value: must be a duration like 1d2h30m10s`],
    ['smart routing ttl_value is longer than zero', withNode(smartRouting({ ttl_value: '0s' })), `${N}.ttl_value: must be a duration longer than zero, like 1d2h30m10s`],
    ['smart routing routing_basis enum', withNode(smartRouting({ routing_basis: 'engagement' })), `${N}.routing_basis: must be one of cost_low_to_high`],
    ['smart routing success is a status unless an event', withNode(smartRouting({ success: 'clicked' })), `${N}.success: must be one of delivered, seen, interacted unless success_is_event is true`],
    ['smart routing success_is_event needs success', withNode(smartRouting({ success_is_event: true, success: undefined })), `${N}.success: is required`],
    ['smart routing success event name at most 255', withNode(smartRouting({ success_is_event: true, success: 'e'.repeat(256) })), `${N}.success: must be at most 255 characters`],
    ['smart routing success_is_event is a boolean', withNode(smartRouting({ success_is_event: 'no' })), `${N}.success_is_event: must be true or false`],
  ];
  it.each(cases)('%s', (_rule, input, expected) => expectErrors(input, expected));

  it('accepts a 120-character slug with - and _ as a slug (only the template lookup fails)', () => {
    const slug = `a-b_${'c'.repeat(116)}`;
    expectErrors(withNode(sendEmail({ template: slug })), `${N}.template: no template with slug "${slug}"`);
  });
});

import {
  BrokenCase,
  Json,
  batch,
  branch,
  comparison,
  conditionalBranch,
  defaultBranch,
  delay,
  delayCondition,
  digest,
  eventBranch,
  expectErrors,
  expectValid,
  expression,
  fetchNode,
  multiChannel,
  relativeTo,
  schedule,
  sendEmail,
  smartRouting,
  timeoutBranch,
  validate,
  waitUntil,
  webhook,
  withNode,
  workflow,
} from './testing/definition-fixtures';

// Node-specific rules are in validate-{timing,http,branch,send}-nodes.unit.spec.ts;
// this file covers the workflow level, every node type together, and the reporting.

const N = 'tree.nodes[0]';

describe('validateWorkflow: a valid tree of every node type', () => {
  const everyVariant: readonly (readonly [string, Json])[] = [
    ['digest with a static schedule', digest()],
    ['digest with a dynamic schedule', digest({ schedule_type: 'dynamic', schedule: undefined, dynamic_schedule_expr: '$recipient.digest_schedule' })],
    ['digest on the category schedule', digest({ schedule_type: 'category_digest_schedule', schedule: undefined })],
    ['digest with a monthly schedule', digest({ schedule: schedule({ frequency: 'monthly', weekdays: undefined, monthdays: [{ pos: -1 }, { pos: 15 }, { pos: 2, day: 'mo' }] }) })],
    ['digest with a minutely schedule in the recipient timezone', digest({ schedule: { frequency: 'minutely', interval: 15, tz_selection: 'recipient' } })],
    ['fixed delay', delay()],
    ['fixed delay in the zero-padded form', delay({ duration: '00d00h05m00s' })],
    ['dynamic delay', delay({ delay_type: 'dynamic', duration: '$recipient.delay_duration' })],
    ['delay relative to a fixed offset', delay({ delay_type: 'relative_to', duration: undefined, relative_to: relativeTo() })],
    ['delay relative to a dynamic offset', delay({ delay_type: 'relative_to', duration: undefined, relative_to: relativeTo({ offset_type: 'after', offset_value_type: 'dynamic', offset_value: '$recipient.reminder_offset' }) })],
    ['batch with a fixed window', batch()],
    ['batch with a dynamic window', batch({ mode: 'flush_leading_item', window_type: 'dynamic', fixed_window: undefined, dynamic_window_expr: '.window_duration' })],
    ['batch with a relative window', batch({ window_type: 'relative_to', fixed_window: undefined, relative_to: relativeTo() })],
    ['webhook', webhook()],
    ['webhook with a Jsonnet url and GET', webhook({ http_method: 'GET', url: '"https://api.example.com/hook?id=" + data["$recipient"].id', body: undefined })],
    ['fetch', fetchNode()],
    ['wait until with a fixed timeout', waitUntil()],
    ['wait until with a dynamic timeout', waitUntil({ branches: [eventBranch(), timeoutBranch({ conditions: [delayCondition({ delay_properties: { delay_type: 'dynamic', value: '.timeout' } })] })] })],
    ['wait until with a relative timeout', waitUntil({ branches: [eventBranch(), timeoutBranch({ conditions: [delayCondition({ delay_properties: { delay_type: 'relative_to', relative_to: relativeTo() } })] })] })],
    ['wait until with the timeout branch first', waitUntil({ branches: [timeoutBranch(), eventBranch()] })],
    ['branch', branch()],
    ['branch with nested AND/OR expressions', branch({ branches: [conditionalBranch({ conditions: [expression({ expression_v1: { op: 'OR', args: [comparison(), { op: 'AND', args: [comparison({ variable_ns: '', variable: 'amount', op: '>', value: '100' }), comparison({ op: 'NON_EMPTY', value: undefined })] }] } })] }), defaultBranch()] })],
    ['branch with ten branches', branch({ branches: [...Array.from({ length: 9 }, () => conditionalBranch()), defaultBranch()] })],
    ['send_email', sendEmail()],
    ['send_sms', sendEmail({ node_type: 'send_sms' })],
    ['send_whatsapp', sendEmail({ node_type: 'send_whatsapp' })],
    ['send_inbox', sendEmail({ node_type: 'send_inbox' })],
    ['send_mobile_push', sendEmail({ node_type: 'send_mobile_push' })],
    ['send_webpush', sendEmail({ node_type: 'send_webpush' })],
    ['send_slack', sendEmail({ node_type: 'send_slack' })],
    ['send_ms_teams', sendEmail({ node_type: 'send_ms_teams' })],
    ['send_multi_channel', multiChannel()],
    ['send_multi_channel without channels', multiChannel({ channels: undefined, channels_expr: undefined })],
    ['send_smart_channel_routing', smartRouting()],
    ['send_smart_channel_routing with a custom success event', smartRouting({ success_is_event: true, success: 'order_placed' })],
  ];

  it.each(everyVariant)('accepts %s', (_variant, node) => expectValid(withNode(node)));

  it('accepts every node type in one tree, nested in branches, and returns it as written', () => {
    const nodes = everyVariant.map(([, node]) => node);
    const input = workflow({}, [
      ...nodes,
      branch({ branches: [conditionalBranch({ nodes }), defaultBranch({ nodes: [waitUntil({ branches: [eventBranch({ nodes }), timeoutBranch()] })] })] }),
    ]);
    const { definition, validation_result } = validate(input);
    expect(validation_result).toEqual({ is_valid: true, errors: [] });
    expect(definition).toEqual(input);
  });

  it('accepts a workflow with every workflow-level field', () => {
    expectValid(
      workflow({
        description: 'Greets new users',
        is_enabled: true,
        category: 'marketing',
        tags: ['onboarding'],
        ratelimit: { count: 4, sliding_window: '6m' },
        conditions: [{ type: 'expression_v1', expression_v1: { op: 'AND', args: [{ variable_ns: '$tenant', variable: 'plan', op: 'ARRAY_INTERSECTS', value: '["pro"]' }] } }],
        trigger_type: 'event',
        trigger_events: ['signup', '$USER_ENTERED_LIST - beta'],
        override_recipients_type: 'single_object_fields',
        override_recipients_single_object_fields_expr: { id: '.object_id', object_type: '"team"', '$object_subscriptions_query.depth': '2' },
        override_actor_user_expr: '.actor_id',
        override_tenant_expr: '.tenant_id',
      }),
    );
  });

  it.each(['dynamic', 'api'])('accepts trigger_type %s without trigger_events', (trigger_type) => expectValid(workflow({ trigger_type })));

  it('reads null as absent for optional fields', () => {
    expectValid(
      workflow({ description: null, ratelimit: null, conditions: null, override_recipients_type: null, override_recipients_user_expr: null, override_tenant_expr: null }),
    );
  });

  it('ignores unknown fields and leaves them out of the definition', () => {
    const { definition, validation_result } = validate(
      workflow({ $schema: 'https://schema.suprsend.com/workflow/v1/schema.json', status: 'draft', payload_schema: null }, [sendEmail({ ui: { x: 1 } })]),
    );
    expect(validation_result.is_valid).toBe(true);
    expect(definition).not.toHaveProperty('$schema');
    expect(definition?.tree.nodes[0]).toEqual({ node_type: 'send_email', name: 'Email', template: 'welcome' });
  });
});

describe('validateWorkflow: workflow-level rules', () => {
  const cases: readonly BrokenCase[] = [
    ['name is required', workflow({ name: undefined }), 'name: is required'],
    ['name must not be blank', workflow({ name: '  ' }), 'name: must not be empty'],
    ['name must be a string', workflow({ name: 5 }), 'name: must be a string'],
    ['description must be a string', workflow({ description: ['x'] }), 'description: must be a string'],
    ['is_enabled must be a boolean', workflow({ is_enabled: 'yes' }), 'is_enabled: must be true or false'],
    ['category is required', workflow({ category: undefined }), 'category: is required'],
    ['category must exist', workflow({ category: 'billing' }), 'category: no notification category with slug "billing"'],
    ['tags must be an array', workflow({ tags: 'onboarding' }), 'tags: must be an array'],
    ['tags must be strings', workflow({ tags: ['a', 3] }), 'tags[1]: must be a string'],
    ['trigger_type is required', workflow({ trigger_type: undefined }), 'trigger_type: is required'],
    ['trigger_type enum', workflow({ trigger_type: 'cron' }), 'trigger_type: must be one of event, dynamic, api'],
    ['trigger_type event needs trigger_events', workflow({ trigger_type: 'event' }), 'trigger_events: must name at least one event when trigger_type is event'],
    ['trigger_type event needs a non-empty trigger_events', workflow({ trigger_type: 'event', trigger_events: [] }), 'trigger_events: must name at least one event when trigger_type is event'],
    ['trigger_events must be an array', workflow({ trigger_type: 'event', trigger_events: 'signup' }), 'trigger_events: must be an array'],
    ['trigger_events entries must not be blank', workflow({ trigger_type: 'event', trigger_events: ['signup', ' '] }), 'trigger_events[1]: must not be empty'],
    ['ratelimit must be an object', workflow({ ratelimit: 4 }), 'ratelimit: must be an object'],
    ['ratelimit.count is required', workflow({ ratelimit: { sliding_window: '1h' } }), 'ratelimit.count: is required'],
    ['ratelimit.count at least 1', workflow({ ratelimit: { count: 0, sliding_window: '1h' } }), 'ratelimit.count: must be an integer of at least 1'],
    ['ratelimit.count an integer', workflow({ ratelimit: { count: 1.5, sliding_window: '1h' } }), 'ratelimit.count: must be an integer of at least 1'],
    ['ratelimit.sliding_window is required', workflow({ ratelimit: { count: 4 } }), 'ratelimit.sliding_window: is required'],
    ['ratelimit.sliding_window is a duration', workflow({ ratelimit: { count: 4, sliding_window: '6 minutes' } }), 'ratelimit.sliding_window: must be a duration like 1d2h30m10s'],
    ['ratelimit.sliding_window is longer than zero', workflow({ ratelimit: { count: 4, sliding_window: '0m' } }), 'ratelimit.sliding_window: must be a duration longer than zero, like 1d2h30m10s'],
    ['conditions must be an array', workflow({ conditions: {} }), 'conditions: must be an array'],
    ['condition type enum', workflow({ conditions: [expression({ type: 'expression_v2' })] }), 'conditions[0].type: must be one of expression_v1'],
    ['condition expression_v1 is required', workflow({ conditions: [{ type: 'expression_v1' }] }), 'conditions[0].expression_v1: is required'],
    ['trigger condition op is AND only', workflow({ conditions: [expression({ expression_v1: { op: 'OR', args: [comparison()] } })] }), 'conditions[0].expression_v1.op: must be one of AND'],
    ['trigger condition args must not be empty', workflow({ conditions: [expression({ expression_v1: { op: 'AND', args: [] } })] }), 'conditions[0].expression_v1.args: must hold at least one condition'],
    ['trigger condition variable_ns enum', workflow({ conditions: [expression({ expression_v1: { op: 'AND', args: [comparison({ variable_ns: '$actor' })] } })] }), 'conditions[0].expression_v1.args[0].variable_ns: must be one of "", $recipient, $tenant'],
    ['trigger condition op enum', workflow({ conditions: [expression({ expression_v1: { op: 'AND', args: [comparison({ op: '=~' })] } })] }), 'conditions[0].expression_v1.args[0].op: must be one of ==, !=, >, <, >=, <=, EMPTY, NON_EMPTY, CONTAINS, NOT_CONTAINS, DATETIME_EQUALS, DATETIME_LT, DATETIME_GT, ARRAY_INTERSECTS, NOT_ARRAY_INTERSECTS'],
    ['trigger condition variable is required', workflow({ conditions: [expression({ expression_v1: { op: 'AND', args: [comparison({ variable: undefined })] } })] }), 'conditions[0].expression_v1.args[0].variable: is required'],
    ['trigger condition value must be a string', workflow({ conditions: [expression({ expression_v1: { op: 'AND', args: [comparison({ value: 3 })] } })] }), 'conditions[0].expression_v1.args[0].value: must be a string'],
    ['trigger conditions do not nest', workflow({ conditions: [expression({ expression_v1: { op: 'AND', args: [{ op: 'AND', args: [comparison()] }] } })] }), 'conditions[0].expression_v1.args[0].args: nested expressions are not allowed here'],
    ['override_recipients_type enum', workflow({ override_recipients_type: 'list' }), 'override_recipients_type: must be one of user, single_object_fields'],
    ['override type user needs its expression', workflow({ override_recipients_type: 'user' }), 'override_recipients_user_expr: is required'],
    ['override_recipients_user_expr is jq', workflow({ override_recipients_type: 'user', override_recipients_user_expr: '.ids(((' }), 'override_recipients_user_expr: invalid jq expression: unbalanced parentheses'],
    ['override type single_object_fields needs its expression', workflow({ override_recipients_type: 'single_object_fields' }), 'override_recipients_single_object_fields_expr: is required'],
    ['override_recipients_single_object_fields_expr is jq', workflow({ override_recipients_single_object_fields_expr: '(((' }), 'override_recipients_single_object_fields_expr: invalid jq expression: unbalanced parentheses'],
    ['override object form needs id', workflow({ override_recipients_single_object_fields_expr: { object_type: '.type' } }), 'override_recipients_single_object_fields_expr.id: is required'],
    ['override object form id is jq', workflow({ override_recipients_single_object_fields_expr: { id: '(((', object_type: '.type' } }), 'override_recipients_single_object_fields_expr.id: invalid jq expression: unbalanced parentheses'],
    ['override object form object_type is jq', workflow({ override_recipients_single_object_fields_expr: { id: '.id', object_type: '(((' } }), 'override_recipients_single_object_fields_expr.object_type: invalid jq expression: unbalanced parentheses'],
    ['override object form depth 0 to 2', workflow({ override_recipients_single_object_fields_expr: { id: '.id', object_type: '.type', '$object_subscriptions_query.depth': '3' } }), 'override_recipients_single_object_fields_expr.$object_subscriptions_query.depth: must be one of 0, 1, 2'],
    ['override_actor_user_expr is jq', workflow({ override_actor_user_expr: '(((' }), 'override_actor_user_expr: invalid jq expression: unbalanced parentheses'],
    ['override_tenant_expr is jq', workflow({ override_tenant_expr: '(((' }), 'override_tenant_expr: invalid jq expression: unbalanced parentheses'],
    ['tree is required', workflow({ tree: undefined }), 'tree: is required'],
    ['tree must be an object', workflow({ tree: [] }), 'tree: must be an object'],
    ['tree.nodes is required', workflow({ tree: {} }), 'tree.nodes: is required'],
    ['tree.nodes must be an array', workflow({ tree: { nodes: {} } }), 'tree.nodes: must be an array'],
    ['the tree has at least one node', workflow({}, []), 'tree.nodes: must hold at least one node'],
    ['a node is an object', withNode('send_email'), `${N}: must be an object`],
    ['node_type is required', withNode(sendEmail({ node_type: undefined })), `${N}.node_type: is required`],
    ['node_type must be supported', withNode(sendEmail({ node_type: 'transform' })), `${N}.node_type: unsupported node_type "transform"`],
    ['node name is required', withNode(delay({ name: undefined })), `${N}.name: is required`],
    ['node name must not be blank', withNode(delay({ name: '' })), `${N}.name: must not be empty`],
    ['node description must be a string', withNode(delay({ description: 5 })), `${N}.description: must be a string`],
  ];

  it.each(cases)('%s', (_rule, input, expected) => expectErrors(input, expected));

  it('rejects input that is not an object', () => expectErrors([], 'a workflow definition must be a JSON object'));
});

describe('validateWorkflow: reporting', () => {
  it('reports every error at once, each under its path', () => {
    const input = workflow({ name: undefined, category: 'billing', trigger_type: 'event' }, [
      delay({ duration: '30 minutes' }),
      sendEmail({ template: 'missing' }),
      branch({
        branches: [conditionalBranch({ nodes: [sendEmail(), batch({ fixed_window: '(((' })] }), defaultBranch({ nodes: [webhook({ http_method: 'HEAD' })] })],
      }),
    ]);
    expect(validate(input).validation_result.errors).toEqual([
      'name: is required',
      'category: no notification category with slug "billing"',
      'trigger_events: must name at least one event when trigger_type is event',
      'tree.nodes[0].duration: must be a duration like 1d2h30m10s',
      'tree.nodes[1].template: no template with slug "missing"',
      'tree.nodes[2].branches[0].nodes[1].fixed_window: must be a duration like 1d2h30m10s',
      'tree.nodes[2].branches[1].nodes[0].http_method: must be one of GET, PUT, POST, PATCH, DELETE',
    ]);
  });

  it('reports several errors of one node', () => {
    expectErrors(withNode(batch({ name: undefined, mode: 'all', retain_count: 0, fixed_window: '0s' })), [
      `${N}.name: is required`,
      `${N}.mode: must be one of accumulate_all, flush_leading_item`,
      `${N}.retain_count: must be an integer from 1 to 100`,
      `${N}.fixed_window: must be a duration longer than zero, like 1d2h30m10s`,
    ]);
  });
});

describe('validateWorkflow: nodes written with a properties object', () => {
  it('merges properties into the node', () => {
    const { definition, validation_result } = validate(
      withNode({ node_type: 'delay', name: 'Wait', properties: { delay_type: 'fixed', duration: '30m' } }),
    );
    expect(validation_result.errors).toEqual([]);
    expect(definition?.tree.nodes).toEqual([{ node_type: 'delay', name: 'Wait', delay_type: 'fixed', duration: '30m' }]);
  });

  it('lets a top-level field win over the same field in properties', () => {
    const { definition } = validate(withNode({ node_type: 'delay', name: 'Wait', duration: '5m', properties: { delay_type: 'fixed', duration: '30m' } }));
    expect(definition?.tree.nodes[0]).toEqual({ node_type: 'delay', name: 'Wait', delay_type: 'fixed', duration: '5m' });
  });

  it('reads a field from properties when the top-level one is null', () => {
    const { definition } = validate(withNode({ node_type: 'delay', name: 'Wait', duration: null, properties: { delay_type: 'fixed', duration: '30m' } }));
    expect(definition?.tree.nodes[0]).toEqual({ node_type: 'delay', name: 'Wait', delay_type: 'fixed', duration: '30m' });
  });

  it('normalises nodes nested in branches', () => {
    const nested = { node_type: 'send_email', name: 'Email', properties: { template: 'welcome' } };
    const { definition, validation_result } = validate(withNode(branch({ branches: [conditionalBranch({ nodes: [nested] }), defaultBranch()] })));
    expect(validation_result.errors).toEqual([]);
    const [node] = definition?.tree.nodes ?? [];
    expect(node?.node_type === 'branch' && node.branches[0].nodes).toEqual([{ node_type: 'send_email', name: 'Email', template: 'welcome' }]);
  });

  it('reports an error of a field from properties at the node path', () => {
    expectErrors(withNode({ node_type: 'delay', name: 'Wait', properties: { delay_type: 'fixed', duration: 'soon' } }), `${N}.duration: must be a duration like 1d2h30m10s`);
  });

  it('ignores a properties field that is not an object', () => {
    expectValid(withNode(sendEmail({ properties: 'x' })));
  });
});

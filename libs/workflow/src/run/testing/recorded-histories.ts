import { WorkflowNode } from '../../definition';
import { RunInput } from '../run-inputs';
import {
  accumulationClosed,
  accumulationJoined,
  at,
  cancel,
  context,
  futureEvent,
  httpResponded,
  outcome,
  RUN_ID,
  sendEmail,
  start,
  T0,
  timerFired,
  user,
  variant,
  workflow,
} from './run-builders';

/**
 * The input sequences of the recorded histories in `histories/*.json`. The JSON files
 * were produced from these once and are frozen: the replay test proves that the
 * interpreter still decides exactly what it decided then.
 */

const condition = (variable: string, value: string) => ({
  type: 'expression_v1' as const,
  expression_v1: { op: 'AND' as const, args: [{ variable, op: '==' as const, value }] },
});

const reminder: WorkflowNode[] = [
  { node_type: 'delay', name: 'Wait a day', delay_type: 'fixed', duration: '1d' },
  {
    node_type: 'branch',
    name: 'Paid?',
    branches: [
      { name: 'paid', conditions: [condition('order.status', 'paid')], nodes: [sendEmail({ name: 'Thanks' })] },
      { name: 'unpaid', is_default: true, nodes: [sendEmail({ name: 'Reminder' })] },
    ],
  },
];

const enrich: WorkflowNode[] = [
  { node_type: 'httpapi_fetch', name: 'Load account', http_method: 'GET', url: '"https://api.example.com/accounts/" + data.account', output_key: 'account_info' },
  { node_type: 'send_multi_channel', name: 'Tell everyone', template: 'welcome', channels: ['email', 'sms', 'inbox'] },
];

const multiContext = context({
  templates: { welcome: { slug: 'welcome', variants: [variant(), variant({ id: 'inbox', channel: 'inbox' })] } },
});

const waitForPayment: WorkflowNode = {
  node_type: 'branch_waituntil',
  name: 'Paid?',
  branches: [
    {
      name: 'paid',
      is_default: false,
      conditions: [{ type: 'future_event', event_name: 'order_paid', event_conditions: [{ variable_ns: '$future_event', variable: 'amount', op: '>', value: '10' }] }],
      nodes: [sendEmail({ name: 'Thanks' })],
    },
    { name: 'unpaid', is_default: true, conditions: [{ type: 'delay', delay_properties: { delay_type: 'fixed', value: '1h' } }], nodes: [sendEmail({ name: 'Reminder' })] },
  ],
};

const collect: WorkflowNode = { node_type: 'batch', name: 'Collect', mode: 'accumulate_all', window_type: 'fixed', fixed_window: '10m', batch_key: '.project' };

export const RECORDED_INPUTS: Readonly<Record<string, readonly (readonly [RunInput, Date])[]>> = {
  'delay-branch-send': [
    [start(workflow(reminder), { data: { order: { status: 'paid' } } }), T0],
    [timerFired(`${RUN_ID}:timer:0`), at(86_400_000)],
    [outcome(`${RUN_ID}:delivery:1.0.0:email`), at(86_500_000)],
  ],
  'fetch-merge-multi-channel': [
    [start(workflow(enrich), { data: { account: 'a-7' }, recipient: user({ only_channels: ['email', 'inbox'] }), context: multiContext }), T0],
    [httpResponded(`${RUN_ID}:http:0`, { kind: 'response', status: 200, body: { name: 'Acme', seats: 12 } }, multiContext), at(800)],
  ],
  'tenant-override-reload-cancel': [
    [start(workflow([reminder[0], sendEmail()], { override_tenant_expr: '.tenant' }), { data: { tenant: 'globex' } }), T0],
    [timerFired(`${RUN_ID}:timer:context`, context({ tenant: { tenant_id: 'globex', properties: { color: 'blue' } } })), at(50)],
    [cancel('order refunded'), at(60_000)],
  ],
  'wait-until-event': [
    [start(workflow([waitForPayment])), T0],
    [futureEvent('order_paid', { amount: 5 }, at(-1_000)), at(500)],
    [futureEvent('order_paid', { amount: 5 }, at(1_000)), at(1_000)],
    [futureEvent('order_paid', { amount: 50 }, at(2_000)), at(2_000)],
  ],
  'batch-owner-close': [
    [start(workflow([collect, sendEmail()]), { data: { project: 'apollo', n: 1 } }), T0],
    [accumulationJoined([0], { batch_id: RUN_ID, role: 'owner', closes_at: at(600_000).toISOString(), owner_run_id: RUN_ID }), at(10)],
    [timerFired(`${RUN_ID}:timer:0`), at(600_000)],
    [accumulationClosed([0], RUN_ID, [{ project: 'apollo', n: 1 }, { project: 'apollo', n: 2 }]), at(600_010)],
  ],
  'invalid-dynamic-delay': [[start(workflow([{ node_type: 'delay', name: 'Wait', delay_type: 'dynamic', duration: '.wait' }]), { data: { wait: 'a while' } }), T0]],
};

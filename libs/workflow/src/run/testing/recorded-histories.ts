import { WorkflowNode } from '../../definition';
import { RunInput } from '../run-inputs';
import { at, cancel, context, httpResponded, outcome, RUN_ID, sendEmail, start, T0, timerFired, user, variant, workflow } from './run-builders';

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
  'invalid-dynamic-delay': [[start(workflow([{ node_type: 'delay', name: 'Wait', delay_type: 'dynamic', duration: '.wait' }]), { data: { wait: 'a while' } }), T0]],
};

import { WorkflowDefinition, WorkflowNode } from '../../definition';
import { RunContext } from '../run-context';
import { RecordedRun, RecordedRunInput } from '../what-if';
import { T0, context, start, user, variant, workflow } from './run-builders';

/**
 * A corpus of recorded runs of one workflow: fetch the recipient's plan, branch on it,
 * gold waits an hour and notifies by email and SMS, the rest get an email. Runs start
 * across a day; some are cancelled along the way. Generated from a seed, so a failing
 * run can be found again.
 */

export const HOUR = 3_600_000;

export const fetchPlan: WorkflowNode = { node_type: 'httpapi_fetch', name: 'Load plan', http_method: 'GET', url: 'https://crm.example.com/plan' } as WorkflowNode;

export const routeOnPlan = (plan = 'gold', goldNodes: readonly WorkflowNode[] = [hourDelay(), notify()]): WorkflowNode =>
  ({
    node_type: 'branch',
    name: 'Route',
    branches: [
      { name: 'gold', conditions: [{ type: 'expression_v1', expression_v1: { op: 'AND', args: [{ variable_ns: '', variable: 'plan', op: '==', value: plan }] } }], nodes: goldNodes },
      { name: 'others', is_default: true, nodes: [{ node_type: 'send_email', name: 'Email', template: 'welcome' }] },
    ],
  }) as WorkflowNode;

export const hourDelay = (name = 'Wait an hour', duration = '1h'): WorkflowNode => ({ node_type: 'delay', name, delay_type: 'fixed', duration }) as WorkflowNode;

export const notify = (channels: readonly string[] = ['email', 'sms']): WorkflowNode =>
  ({ node_type: 'send_multi_channel', name: 'Notify', template: 'welcome', channels }) as WorkflowNode;

export const corpusWorkflow = (nodes: readonly WorkflowNode[] = [fetchPlan, routeOnPlan()]): WorkflowDefinition => workflow(nodes);

const reachable: RunContext = context({
  recipient_profile: { properties: {}, channels: { email: ['a@example.com'], sms: ['+331234'] }, locale: 'en' },
  templates: { welcome: { slug: 'welcome', variants: [variant({ id: 'email', channel: 'email' }), variant({ id: 'sms', channel: 'sms' })] } },
});

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface CorpusOptions {
  readonly runs: number;
  readonly seed?: number;
  /** The share of runs cancelled at some point of their first two hours. */
  readonly cancelled?: number;
  readonly definition?: WorkflowDefinition;
}

export function recordedCorpus(options: CorpusOptions): RecordedRun[] {
  const next = random(options.seed ?? 19);
  const definition = options.definition ?? corpusWorkflow();
  const plans = ['gold', 'silver', 'bronze'];
  return Array.from({ length: options.runs }, (_, i) => {
    const runId = `run-${i}`;
    const startedAt = new Date(T0.getTime() + Math.floor(next() * 24 * HOUR));
    const later: RecordedRunInput[] = [
      {
        input: { type: 'http_responded', request_id: `${runId}:http:0`, response: { kind: 'response', status: 200, body: { plan: plans[Math.floor(next() * plans.length)] } }, context: reachable },
        at: new Date(startedAt.getTime() + 150),
      },
    ];
    if (next() < (options.cancelled ?? 0)) later.push({ input: { type: 'cancel', reason: 'cancelled by the client', context: reachable }, at: new Date(startedAt.getTime() + Math.floor(next() * 2 * HOUR)) });
    return {
      start: start(definition, { run_id: runId, message_id: `msg-${i}`, recipient: user({ distinct_id: `user-${i}` }), data: { order: { id: `o-${i}` } }, context: reachable }),
      started_at: startedAt,
      later,
    };
  });
}

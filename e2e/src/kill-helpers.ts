/**
 * Helpers of the kill tests (engine-kill, engine-batch-kill, dispatch-kill): a replayable
 * schedule, latency summaries, and the definitions they announce as management-api would.
 */
import { randomUUID } from 'node:crypto';
import { DEFINITION_CHANGED_TYPE, DefinitionChanged, TOPICS, envelopeOf } from '@herald/contracts';
import { MessageBus } from '@herald/bus';

/** mulberry32: kill schedules and delays come from a printed seed, so a failing schedule can be replayed (HERALD_KILL_SEED). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The seed of this run: HERALD_KILL_SEED to replay one, else a fresh one. */
export function killSeed(): number {
  return Number(process.env.HERALD_KILL_SEED ?? Math.floor(Math.random() * 2 ** 31));
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function describeSpread(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `min ${sorted[0]} ms, median ${percentile(sorted, 50)} ms, p95 ${percentile(sorted, 95)} ms, max ${sorted[sorted.length - 1]} ms`;
}

/** One preference category, `account` (opt-in), for the kill tests' workflows. */
export const ACCOUNT_CATEGORIES = {
  root_categories: [{ root_category: 'transactional', sections: [{ name: 'Account', categories: [{ category: 'account', name: 'Account', default_preference: 'opt_in' }] }] }],
};

/** A template variant for any tenant in English, approved: what the kill tests' templates are made of. */
export function approvedVariant(id: string, channel: string, content: Record<string, unknown>) {
  return { id, channel, tenant_id: null, locale: 'en', seq_no: 1, conditions: [], content, needs_vendor_approval: false, approval_status: 'auto_approved' };
}

/** An e-mail template whose one variant is `default`: "Hello {{name}}". */
export function mailTemplate(slug: string) {
  return {
    slug,
    enabled_channels: ['email'],
    variants: [approvedVariant('default', 'email', { subject: 'Hello {{name}}', html: '<p>Hi {{name}}</p>', text: 'Hi {{name}}' })],
  };
}

/**
 * Publishes definition changes of one workspace to notify.definition.changed.v1 as
 * management-api does, each with the next version. `bus` is read at each call (the
 * tests create theirs in beforeAll).
 */
export function definitionAnnouncer(bus: () => MessageBus, workspace: string) {
  let version = 0;
  return async (kind: DefinitionChanged['kind'], id: string, document: unknown, change: DefinitionChanged['change'] = 'committed'): Promise<void> => {
    version += 1;
    const changed: DefinitionChanged = { kind, change, workspace_id: workspace, workspace_slug: 'staging', id, version, document };
    await bus().publish(TOPICS.definitionChanged.name, [{ key: workspace, value: JSON.stringify(envelopeOf(DEFINITION_CHANGED_TYPE, 1, randomUUID(), workspace, new Date(), changed)) }]);
  };
}

/**
 * What the end-to-end tests that run services without management-api announce in its
 * place on notify.definition.changed.v1 (kill tests, poison messages): categories,
 * templates, and the announcer that numbers the versions.
 */
import { randomUUID } from 'node:crypto';
import { DEFINITION_CHANGED_TYPE, DefinitionChanged, TOPICS, envelopeOf } from '@herald/contracts';
import { MessageBus } from '@herald/bus';

/** One preference category, `account` (opt-in), for the tests' workflows. */
export const ACCOUNT_CATEGORIES = {
  root_categories: [{ root_category: 'transactional', sections: [{ name: 'Account', categories: [{ category: 'account', name: 'Account', default_preference: 'opt_in' }] }] }],
};

/** A template variant for any tenant in English, approved: what the tests' templates are made of. */
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

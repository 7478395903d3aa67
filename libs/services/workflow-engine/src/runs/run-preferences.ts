import { CategoryDocument, PreferenceSnapshot as AudienceSnapshot, evaluatePreference, indexCategories } from '@herald/audience';
import { PreferencePolicy, PreferenceSnapshot } from '@herald/workflow';

/**
 * The interpreter's preference port on the one evaluation function of @herald/audience.
 * The snapshot a run carries is exactly audience's (JSON), built by the context loader.
 */
export const audiencePreferencePolicy: PreferencePolicy = {
  evaluate: ({ snapshot, channel }) => {
    const [decision] = evaluatePreference(snapshot as unknown as AudienceSnapshot, [channel]).channels;
    return { allowed: decision.send, reason: decision.reason };
  },
};

/**
 * The snapshot for one run: the workflow's category as live in the workspace, and (once
 * the engine reads preference-service's announcements) the recipient's and tenant's
 * choices. A category missing from the live set evaluates as "no category": every
 * channel sends.
 */
export function preferenceSnapshot(categories: CategoryDocument | null, categorySlug: string | undefined): PreferenceSnapshot {
  const located = categories && categorySlug ? indexCategories(categories).get(categorySlug) : undefined;
  const snapshot: AudienceSnapshot = { category: located?.definition ?? null, tenant: null, subject: null, subject_in_tenant: null };
  return snapshot as unknown as PreferenceSnapshot;
}

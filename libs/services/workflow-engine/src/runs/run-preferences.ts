import { CategoryDocument, PreferenceSnapshot as AudienceSnapshot, SubjectPreferences, TenantPreferences, effectiveDefaults, evaluatePreference, indexCategories } from '@herald/audience';
import { PreferencePolicy, PreferenceSnapshot } from '@herald/workflow';

/**
 * The interpreter's preference port on the one evaluation function of @herald/audience.
 * The snapshot a run carries is exactly audience's (JSON), built by the context loader.
 */
export const audiencePreferencePolicy: PreferencePolicy = {
  evaluate: ({ snapshot, channel }) => {
    const audience = snapshot as unknown as AudienceSnapshot;
    const [decision] = evaluatePreference(audience, [channel]).channels;
    // A category the recipient may opt out of (not cant_unsubscribe, tenant defaults included): its emails carry List-Unsubscribe.
    const category = audience.category;
    const unsubscribable = category !== null && effectiveDefaults(category, audience.tenant?.categories[category.category]).preference !== 'cant_unsubscribe';
    return { allowed: decision.send, reason: decision.reason, ...(unsubscribable ? { unsubscribable: true } : {}) };
  },
};

/**
 * The snapshot for one run: the workflow's category as live in the workspace, the
 * tenant's defaults and the recipient's choices. A category missing from the live set
 * evaluates as "no category": every channel sends.
 */
export function preferenceSnapshot(
  categories: CategoryDocument | null,
  categorySlug: string | undefined,
  choices: { readonly tenant: TenantPreferences | null; readonly subject: SubjectPreferences | null; readonly subject_in_tenant: SubjectPreferences | null },
): PreferenceSnapshot {
  const located = categories && categorySlug ? indexCategories(categories).get(categorySlug) : undefined;
  const snapshot: AudienceSnapshot = { category: located?.definition ?? null, ...choices };
  return snapshot as unknown as PreferenceSnapshot;
}

import { CategoryDocument, PreferenceSnapshot as AudienceSnapshot, SubjectPreferences, TenantPreferences, evaluatePreference, indexCategories } from '@herald/audience';
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

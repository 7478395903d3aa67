import { DeliveryWarning } from '@herald/contracts';

/** Bounds what one message's log carries: a template with more missing placeholders than this has one problem, named enough. */
export const MAX_DELIVERY_WARNINGS = 50;

const TRANSLATION_KEY = /^t "(.*)"$/;

/**
 * The renderer's `missingVariables` (`field: path`, or `field: t "key"` for a
 * translation key; see RenderResult) as warnings for the delivery's outcome, each once,
 * at most MAX_DELIVERY_WARNINGS.
 */
export function renderWarnings(missing: readonly string[]): DeliveryWarning[] {
  const warnings = new Map<string, DeliveryWarning>();
  for (const entry of missing) {
    if (warnings.size >= MAX_DELIVERY_WARNINGS) break;
    const separator = entry.indexOf(': ');
    if (separator === -1) continue;
    const field = entry.slice(0, separator);
    const what = entry.slice(separator + 2);
    const key = TRANSLATION_KEY.exec(what)?.[1];
    warnings.set(entry, key === undefined ? { code: 'missing_variable', field, variable: what } : { code: 'missing_translation', field, key });
  }
  return [...warnings.values()];
}

import { Channel } from '@herald/contracts';
import { evaluateConditions } from './conditions';
import { Result, ok } from './evaluate';
import { RunExpressions } from './ports';
import { TemplateEntry, TemplateVariant } from './run-context';
import { RunScope } from './run-scope';

/** The locale every template falls back to. */
export const DEFAULT_LOCALE = 'en';

export interface VariantWanted {
  readonly channel: Channel;
  readonly tenant_id?: string;
  readonly locale?: string;
}

/**
 * The variant a send uses on one channel. Tiers, first match wins: the run's tenant
 * with the recipient's exact locale (`pt-BR`), its language (`pt`), the default locale
 * (`en`); then the same three among the variants without tenant. Within a tier,
 * variants are tried in `seq_no` order and the first whose conditions hold is taken
 * (a variant whose conditions fail lets the next one in). Locales compare ignoring
 * case and `_`/`-`. Undefined when no variant fits.
 */
export function selectVariant(
  entry: TemplateEntry | undefined,
  wanted: VariantWanted,
  scope: RunScope,
  expressions: RunExpressions,
): Result<TemplateVariant | undefined> {
  if (entry === undefined) return ok(undefined);
  const onChannel = entry.variants.filter((variant) => variant.channel === wanted.channel);
  for (const tenant of tenantTiers(wanted.tenant_id)) {
    for (const locale of localeTiers(wanted.locale)) {
      const tier = onChannel
        .filter((variant) => (variant.tenant_id ?? undefined) === tenant && normaliseLocale(variant.locale) === locale)
        .sort((a, b) => a.seq_no - b.seq_no);
      for (const variant of tier) {
        const applies = evaluateConditions(variant.conditions ?? [], scope, expressions);
        if (!applies.ok) return { ok: false, error: `conditions of variant ${variant.id}: ${applies.error}` };
        if (applies.value.holds) return ok(variant);
      }
    }
  }
  return ok(undefined);
}

function tenantTiers(tenantId: string | undefined): readonly (string | undefined)[] {
  return tenantId === undefined ? [undefined] : [tenantId, undefined];
}

function localeTiers(locale: string | undefined): readonly string[] {
  const tiers: string[] = [];
  if (locale !== undefined && locale !== '') {
    const exact = normaliseLocale(locale);
    tiers.push(exact, exact.split('-')[0]);
  }
  tiers.push(DEFAULT_LOCALE);
  return [...new Set(tiers)];
}

function normaliseLocale(locale: string): string {
  return locale.trim().toLowerCase().replace(/_/g, '-');
}

import { Channel } from '@herald/contracts';
import { PreferenceSnapshot } from './run-context';

/**
 * What the interpreter needs from outside the domain. The engine host wires the real
 * jq and Jsonnet engines (libs/platform/expressions) and the preference evaluation of
 * libs/audience; tests use the fakes in `testing/`. An implementation must not throw,
 * but the interpreter still guards every call, since an expression is client input.
 */
export interface RunPorts {
  readonly expressions: RunExpressions;
  readonly preferences: PreferencePolicy;
}

export type JqOutcome = { readonly ok: true; readonly outputs: readonly unknown[] } | { readonly ok: false; readonly error: string };

export type JsonnetOutcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

export interface RunExpressions {
  /** All outputs of a jq filter; `variables` are bound as `$recipient`, `$actor`, `$tenant` (names without the `$`). */
  jq(filter: string, input: unknown, variables: Readonly<Record<string, unknown>>): JqOutcome;
  /** Runs a Jsonnet script with `data` bound to the run's data object. */
  jsonnet(source: string, data: unknown): JsonnetOutcome;
  /**
   * True when a url, header or query value (or a condition's value) is a plain literal,
   * used as written rather than evaluated (decisions.md). The host wires the Jsonnet
   * engine's rule (`hasJsonnetOnlySyntax` and a parse check).
   */
  isLiteral(value: string): boolean;
}

export interface PreferenceQuestion {
  readonly snapshot: PreferenceSnapshot;
  /** The workflow's notification category. */
  readonly category: string;
  readonly channel: Channel;
  readonly tenant_id?: string;
}

export interface PreferenceDecision {
  readonly allowed: boolean;
  /** Why, in words a log reader understands ("opted out of email for marketing"). */
  readonly reason: string;
  /** The recipient may opt out of the category (it is not cant_unsubscribe): its emails carry List-Unsubscribe. */
  readonly unsubscribable?: boolean;
}

/** May this recipient be notified on this channel for this category? Implemented by libs/audience (issue 7). */
export interface PreferencePolicy {
  evaluate(question: PreferenceQuestion): PreferenceDecision;
}

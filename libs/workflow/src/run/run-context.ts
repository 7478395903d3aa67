import { Channel, InlineChannels, JsonRecord } from '@herald/contracts';
import { ExpressionCondition } from '../definition';

/**
 * What the host loads just before it feeds an input to a run: the audience and
 * template data the run may read. It travels inside the input, so the recorded input
 * is enough to replay the decision, and the interpreter stays free of I/O.
 *
 * The host loads it for the run's current recipient and tenant (after a
 * `tenant.overridden` the run asks for a fresh one with a `context_reload` timer).
 */
export interface RunContext {
  /** The recipient's stored profile, global merged with the per-tenant one when a tenant is set; absent when none is stored. */
  readonly recipient_profile?: StoredProfile;
  /** The run's tenant with its properties; absent when the run has no tenant or the tenant is unknown. */
  readonly tenant?: TenantContext;
  /** The recipient's preferences as libs/audience stores them; only the PreferencePolicy reads it. */
  readonly preferences: PreferenceSnapshot;
  /** The live entries of the templates the workflow's send nodes name, by slug; a missing slug has no live variant. */
  readonly templates: Readonly<Record<string, TemplateEntry>>;
  /**
   * When the workflow has a `ratelimit`: the times (ISO) at which earlier runs of this
   * workflow for this recipient were admitted (`run.admitted.v1`). Needed until the run
   * is admitted: on `start`, and on the `context_reload` timer.
   */
  readonly recent_admissions?: readonly string[];
}

export interface StoredProfile {
  readonly properties: JsonRecord;
  readonly channels: InlineChannels;
  readonly locale?: string;
  readonly timezone?: string;
}

export interface TenantContext {
  readonly tenant_id: string;
  readonly properties: JsonRecord;
}

/** Opaque to the interpreter: issue 7 defines its shape, the PreferencePolicy interprets it. */
export type PreferenceSnapshot = JsonRecord;

export interface TemplateEntry {
  readonly slug: string;
  readonly variants: readonly TemplateVariant[];
  /** Strict rendering: carried to each delivery, where a missing variable fails it. */
  readonly strict?: boolean;
}

/** A live template variant (interface 2.5), with its content. */
export interface TemplateVariant {
  readonly id: string;
  readonly channel: Channel;
  /** Absent or null: the default (no tenant). */
  readonly tenant_id?: string | null;
  readonly locale: string;
  /** `expression_v1` conditions, evaluated like branch conditions; the variant applies when any holds (or there are none). */
  readonly conditions?: readonly ExpressionCondition[];
  readonly seq_no: number;
  readonly content: JsonRecord;
}

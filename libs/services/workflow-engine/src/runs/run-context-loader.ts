import { Injectable } from '@nestjs/common';
import { CategoryDocument } from '@herald/audience';
import { Channel, Recipient } from '@herald/contracts';
import { RunContext, TemplateEntry, TemplateVariant, WorkflowDefinition, WorkflowNode } from '@herald/workflow';
import { DefinitionKey } from '../read-models/definition.repository';
import { LiveAudience, recipientSubject } from '../read-models/live-audience';
import { LiveDefinitions } from '../read-models/live-definitions';
import { RunProjectionRepository } from './run-projection.repository';
import { preferenceSnapshot } from './run-preferences';

/** A live template as management announces it (only what a run reads). */
interface AnnouncedTemplate {
  readonly slug: string;
  readonly enabled_channels?: readonly Channel[];
  readonly strict?: boolean;
  readonly variants: ReadonlyArray<{
    readonly id: string;
    readonly channel: Channel;
    readonly tenant_id: string | null;
    readonly locale: string;
    readonly conditions?: TemplateVariant['conditions'];
    readonly seq_no: number;
    readonly content: Record<string, unknown>;
    readonly needs_vendor_approval?: boolean;
    readonly approval_status?: string;
  }>;
}

/** What one input's context is loaded for. */
export interface ContextRequest {
  readonly workspaceId: string;
  readonly workflow: { readonly slug: string; readonly definition: WorkflowDefinition };
  readonly recipient: Recipient;
  readonly recipientKey: string;
  readonly tenantId?: string;
}

/**
 * Loads what a run may read before the host feeds it an input: the live variants of
 * the templates its send nodes name, and for a rate-limited workflow the recipient's
 * recent admissions, the recipient's stored profile (the per-tenant one merged over the
 * global one), the tenant, and the preference snapshot: the workflow's category with the
 * tenant's defaults and the recipient's choices, as preference-service announced them.
 */
@Injectable()
export class RunContextLoader {
  constructor(
    private readonly projection: RunProjectionRepository,
    private readonly definitions: LiveDefinitions,
    private readonly audience: LiveAudience,
  ) {}

  async load(workspaceId: string, workflow: { slug: string; definition: WorkflowDefinition }, recipient: Recipient, recipientKey: string, tenantId?: string): Promise<RunContext> {
    const [context] = await this.loadMany([{ workspaceId, workflow, recipient, recipientKey, tenantId }]);
    return context;
  }

  /**
   * The contexts of a batch of inputs: the definitions in one statement (cached by
   * version, see LiveDefinitions.currentDocuments) and the recipients' data in
   * another, sent together (each round trip is a hop's latency); only a rate-limited
   * workflow adds one for its input's admissions.
   */
  async loadMany(requests: readonly ContextRequest[]): Promise<RunContext[]> {
    const slugsOf = requests.map((r) => [...templateSlugs(r.workflow.definition.tree.nodes)]);
    const keys: DefinitionKey[] = requests.flatMap((r, i) => [
      ...slugsOf[i].map((slug): DefinitionKey => ({ workspaceId: r.workspaceId, kind: 'template', id: slug })),
      { workspaceId: r.workspaceId, kind: 'category', id: 'categories' },
    ]);
    const [documents, recipients] = await Promise.all([
      this.definitions.currentDocuments(keys),
      this.audience.recipientDataMany(requests.map((r) => ({ workspaceId: r.workspaceId, subject: recipientSubject(r.recipient), tenantId: r.tenantId }))),
    ]);
    const documentOf = new Map(keys.map((k, i) => [`${k.workspaceId}:${k.kind}:${k.id}`, documents[i]]));
    const contexts: RunContext[] = [];
    for (const [i, { workspaceId, workflow, recipientKey }] of requests.entries()) {
      const templates: Record<string, TemplateEntry> = {};
      for (const slug of slugsOf[i]) {
        const announced = documentOf.get(`${workspaceId}:template:${slug}`) as AnnouncedTemplate | undefined;
        if (announced) templates[slug] = sendableVariants(announced);
      }
      const recent = workflow.definition.ratelimit ? await this.recentAdmissions(workspaceId, workflow.slug, recipientKey) : undefined;
      const categories = (documentOf.get(`${workspaceId}:category:categories`) as CategoryDocument | undefined) ?? null;
      const { profile, preferences: choices, tenant } = recipients[i];
      contexts.push({
        ...(profile ? { recipient_profile: profile } : {}),
        ...(tenant ? { tenant: tenant.context } : {}),
        preferences: preferenceSnapshot(categories, workflow.definition.category, {
          tenant: tenant?.preferences ?? null,
          subject: choices.global,
          subject_in_tenant: choices.inTenant,
        }),
        templates,
        ...(recent ? { recent_admissions: recent } : {}),
      });
    }
    return contexts;
  }

  private async recentAdmissions(workspaceId: string, workflowSlug: string, recipientKey: string): Promise<string[]> {
    return (await this.projection.recentAdmissions(workspaceId, workflowSlug, recipientKey)).map((at) => at.toISOString());
  }
}

/** Every template a send node of the tree (branches included) names. */
export function templateSlugs(nodes: readonly WorkflowNode[]): Set<string> {
  const slugs = new Set<string>();
  for (const node of nodes) {
    if ('template' in node && typeof node.template === 'string') slugs.add(node.template);
    if ('branches' in node) for (const branch of node.branches) for (const slug of templateSlugs(branch.nodes)) slugs.add(slug);
  }
  return slugs;
}

/** The variants a run may choose: of an enabled channel, and approved by a vendor where that is needed. */
function sendableVariants(template: AnnouncedTemplate): TemplateEntry {
  const variants = template.variants
    .filter((v) => (template.enabled_channels ?? [v.channel]).includes(v.channel))
    .filter((v) => !v.needs_vendor_approval || v.approval_status === 'approved')
    .map(
      (v): TemplateVariant => ({
        id: v.id,
        channel: v.channel,
        tenant_id: v.tenant_id,
        locale: v.locale,
        ...(v.conditions ? { conditions: v.conditions } : {}),
        seq_no: v.seq_no,
        content: v.content,
      }),
    );
  return { slug: template.slug, variants, ...(template.strict === true ? { strict: true } : {}) };
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExpressionEngines, createExpressionEngines, isJqSyntaxError } from '@herald/expressions';
import { DefinitionValidationContext, DigestSchedule, NODE_TYPES, digestZone, nextDigestTime, validateWorkflow } from '@herald/workflow';
import { DEFAULT_CATEGORY_DOCUMENT } from './preference-categories/default-categories';
import { managementSchemas } from './openapi/management-schemas';
import { TEMPLATE_BODIES } from './templates/request-bodies';
import { CONTENT_RULES, validateContent } from './templates/variant-content';
import { Channel, VENDOR_CATALOGUE, validateCredentials } from './vendors/vendor-catalogue';

const reference = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'reference.md'), 'utf8');
const rowsOf = (heading: string): string[] => {
  const section = reference.slice(reference.indexOf(`## ${heading}`));
  return section.slice(0, section.indexOf('\n## ', 3) === -1 ? undefined : section.indexOf('\n## ', 3)).split('\n').filter((line) => line.startsWith('| `'));
};
/** The JSON example in a table row's last cell. */
const exampleOf = (row: string): unknown => {
  const cell = /\| `(\{.*\})` \|$/.exec(row);
  if (!cell) throw new Error(`no JSON example at the end of the row ${row}`);
  return JSON.parse(cell[1]) as unknown;
};
/** The workspace a reader starts with: the default categories, and the quickstart's `welcome` template. */
const DEFAULT_CATEGORIES = new Set(DEFAULT_CATEGORY_DOCUMENT.root_categories.flatMap((root) => root.sections.flatMap((section) => section.categories.map((c) => c.category))));
/** A workflow around example nodes, as the management API saves it. */
const workflowOf = (nodes: unknown[], over: Record<string, unknown> = {}): Record<string, unknown> => ({ name: 'Example', category: 'transactional', trigger_type: 'api', tree: { nodes }, ...over });

/** docs/reference.md describes the bodies the OpenAPI leaves as `object`: it must not drift from what the code accepts. */
describe('docs/reference.md', () => {
  it("names every channel's content fields", () => {
    const rows = rowsOf('Template content');
    for (const [channel, rules] of Object.entries(CONTENT_RULES)) {
      const row = rows.find((line) => line.split('|')[1].includes(`\`${channel}\``));
      expect({ channel, documented: row !== undefined }).toEqual({ channel, documented: true });
      for (const field of Object.keys(rules.fields)) expect({ channel, field, documented: row?.includes(`\`${field}\``) }).toEqual({ channel, field, documented: true });
    }
  });

  it("names every vendor and each of its credential fields", () => {
    const rows = rowsOf('Vendors');
    for (const spec of VENDOR_CATALOGUE) {
      const row = rows.find((line) => line.startsWith(`| \`${spec.channel}\` | \`${spec.vendor}\` |`));
      expect({ vendor: `${spec.channel}/${spec.vendor}`, documented: row !== undefined }).toEqual({ vendor: `${spec.channel}/${spec.vendor}`, documented: true });
      for (const field of Object.keys(spec.credentials)) {
        expect({ vendor: spec.vendor, field, documented: row?.split('|')[3].includes(`\`${field}\``) }).toEqual({ vendor: spec.vendor, field, documented: true });
      }
    }
  });

  it('names every node type', () => {
    const documented = rowsOf('Node types').flatMap((line) => [...line.split('|')[1].matchAll(/`([a-z_]+)`/g)].map((match) => match[1]));
    expect([...documented].sort()).toEqual([...NODE_TYPES].sort());
  });

  describe('every example validates as the API would take it', () => {
    let engines: ExpressionEngines;
    let context: DefinitionValidationContext;
    /** The errors the management API would save the workflow's draft with: none for a valid example. */
    const errorsOf = (workflow: unknown): string[] => validateWorkflow(workflow, context).validation_result.errors;

    beforeAll(() => {
      // The same jq and Jsonnet parsers the management API validates with.
      engines = createExpressionEngines();
      context = {
        jqSyntaxError: (expression) => {
          const compiled = engines.jq.compile(expression);
          return isJqSyntaxError(compiled) ? compiled.message : undefined;
        },
        jsonnetSyntaxError: (source) => engines.jsonnet.check(source)?.message,
        templateExists: (slug) => slug === 'welcome',
        categoryExists: (slug) => DEFAULT_CATEGORIES.has(slug),
      };
    });
    afterAll(() => engines.close());

    it("each channel's example content", () => {
      const rows = rowsOf('Template content');
      expect(rows.length).toBe(8);
      for (const row of rows) {
        const channels = [...row.split('|')[1].matchAll(/`([a-z_]+)`/g)].map((match) => match[1] as Channel);
        for (const channel of channels) expect({ channel, errors: validateContent(channel, exampleOf(row)) }).toEqual({ channel, errors: [] });
      }
    });

    it("each vendor's example credentials, but for the secrets the page elides (…)", () => {
      for (const spec of VENDOR_CATALOGUE) {
        const row = rowsOf('Vendors').find((line) => line.startsWith(`| \`${spec.channel}\` | \`${spec.vendor}\` |`)) ?? '';
        const example = exampleOf(row) as Record<string, unknown>;
        const elided = (path: string): boolean => String(example[path.replace(/^credentials\./, '')]).includes('…');
        const errors = validateCredentials(spec, example).errors.filter((error) => !elided(error.path));
        expect({ vendor: spec.vendor, errors }).toEqual({ vendor: spec.vendor, errors: [] });
      }
    });

    it("each node type's example, in a workflow", () => {
      const rows = rowsOf('Node types');
      expect(rows.length).toBeGreaterThanOrEqual(10);
      for (const row of rows) {
        const node = exampleOf(row) as { node_type: string };
        expect({ node_type: node.node_type, errors: errorsOf(workflowOf([node])) }).toEqual({ node_type: node.node_type, errors: [] });
      }
    });

    it('the examples in the text: durations, the rate limit, a strict template', () => {
      const durations = /Durations are `NdNhNmNs` strings \(`([^`]+)`, or shorter: `([^`]+)`\)/.exec(reference);
      expect(durations).not.toBeNull();
      for (const duration of durations?.slice(1) ?? []) {
        expect({ duration, errors: errorsOf(workflowOf([{ name: 'Wait', node_type: 'delay', delay_type: 'fixed', duration }, { name: 'Mail', node_type: 'send_email', template: 'welcome' }])) }).toEqual({ duration, errors: [] });
      }
      const ratelimit = /`ratelimit`\s+\(`(\{[^`]+\})`\)/.exec(reference);
      expect(ratelimit).not.toBeNull();
      expect(errorsOf(workflowOf([{ name: 'Mail', node_type: 'send_email', template: 'welcome' }], { ratelimit: JSON.parse(ratelimit?.[1] ?? 'null') }))).toEqual([]);
      const strict = /e\.g\. `(\{"name": "Welcome", "strict": true\})`/.exec(reference);
      expect(strict).not.toBeNull();
      const template = JSON.parse(strict?.[1] ?? 'null') as Record<string, unknown>;
      expect(TEMPLATE_BODIES.template.errors(template)).toEqual([]);
      // Every field of the example is one the body has (an unknown one would be ignored silently).
      const { properties } = managementSchemas.openApiComponents().TemplateBody as { properties: Record<string, unknown> };
      expect(Object.keys(template).filter((field) => !(field in properties))).toEqual([]);
    });

    it('each workflow of a json block', () => {
      const blocks = [...reference.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1]) as unknown);
      expect(blocks.length).toBeGreaterThanOrEqual(1);
      for (const workflow of blocks) expect({ workflow, errors: errorsOf(workflow) }).toEqual({ workflow, errors: [] });
    });

    it('each digest schedule, in a digest node, closing next when the page says', () => {
      const rows = rowsOf('Digest schedules').filter((row) => /\| `\{"frequency"/.test(row));
      expect(rows.length).toBeGreaterThanOrEqual(6);
      const after = /after `([^`]+)`/.exec(reference.slice(reference.indexOf('## Digest schedules')))?.[1] ?? '';
      expect(after).not.toBe('');
      for (const row of rows) {
        const [, scheduleJson, closes] = /^\| `(\{.*\})` \| `([^`]+)` \|$/.exec(row) ?? [];
        const schedule = JSON.parse(scheduleJson) as DigestSchedule;
        const digest = { name: 'Digest', node_type: 'digest', schedule_type: 'static', schedule, retain_count: 10 };
        expect({ schedule, errors: errorsOf(workflowOf([digest, { name: 'Mail', node_type: 'send_email', template: 'welcome' }])) }).toEqual({ schedule, errors: [] });
        expect({ schedule, closes: nextDigestTime(schedule, digestZone(schedule), new Date(after))?.toISOString() }).toEqual({ schedule, closes });
      }
    });
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_TYPES } from '@herald/workflow';
import { CONTENT_RULES } from './templates/variant-content';
import { VENDOR_CATALOGUE } from './vendors/vendor-catalogue';

const reference = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'reference.md'), 'utf8');
const rowsOf = (heading: string): string[] => {
  const section = reference.slice(reference.indexOf(`## ${heading}`));
  return section.slice(0, section.indexOf('\n## ', 3) === -1 ? undefined : section.indexOf('\n## ', 3)).split('\n').filter((line) => line.startsWith('| `'));
};

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
});

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = join(__dirname, '..', '..');
const documents = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** A user has the repository and nothing else: its docs must not lean on files outside it. */
describe.each(documents)('%s', (document) => {
  const text = readFileSync(join(root, document), 'utf8');

  it('points to nothing outside the repository', () => {
    expect(text).not.toMatch(/\.\.\/shared\b/);
  });

  it('links only to files that exist', () => {
    const links = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]).filter((target) => !/^[a-z]+:/i.test(target));
    const missing = links.filter((target) => !existsSync(join(root, dirname(document), target)));
    expect(missing).toEqual([]);
  });
});

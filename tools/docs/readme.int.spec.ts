import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHANNELS, TOPICS } from '@herald/contracts';

const root = join(__dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The README is what operators configure Herald from; it must not drift from the code. */
describe('README', () => {
  it('documents every configuration variable Herald reads', () => {
    const sources = ['libs/platform/runtime/src/config/herald-config.ts', 'apps/herald/src/start-service.ts'];
    const variables = new Set(
      sources.flatMap((file) => readFileSync(join(root, file), 'utf8').match(/HERALD_[A-Z_]+/g) ?? []),
    );
    expect(variables.size).toBeGreaterThan(10);
    for (const variable of variables) expect(readme).toContain(`\`${variable}\``);
  });

  it('lists every topic of the topic map', () => {
    for (const topic of Object.values(TOPICS)) expect(readme).toContain(`| \`${topic.name}\` | ${topic.key} |`);
    expect(readme).toContain('`notify.delivery.<channel>.requested.v1`');
    for (const channel of CHANNELS) expect(readme).toContain(channel);
  });
});

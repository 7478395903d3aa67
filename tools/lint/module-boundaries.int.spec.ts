import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ESLint } from 'eslint';

const root = join(__dirname, '..', '..');

/**
 * The architecture rules are only worth something if lint really fails on a
 * violation; these cases lint source text as if it lived in each kind of project.
 */
describe('module boundaries enforced by lint', () => {
  let eslint: ESLint;

  beforeAll(() => {
    // The Nx rule reads the cached project graph; without one it silently skips.
    execFileSync(process.execPath, [require.resolve('nx/bin/nx'), 'show', 'projects'], {
      cwd: root,
      env: { ...process.env, NX_DAEMON: 'false' },
      stdio: 'pipe',
    });
    eslint = new ESLint({ cwd: root });
  });

  async function boundaryErrors(filePath: string, source: string): Promise<string[]> {
    const [result] = await eslint.lintText(source, { filePath: join(root, filePath) });
    return result.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => m.message);
  }

  it.each(['@nestjs/common', 'kafkajs', 'typeorm', 'pg'])('refuses %s in a domain library', async (framework) => {
    const errors = await boundaryErrors('libs/contracts/src/violation.ts', `import * as x from '${framework}';\nexport const y = x;\n`);
    expect(errors).toEqual([expect.stringContaining(`not allowed to import "${framework}"`)]);
  });

  it.each(['@nestjs/core', 'pg'])('refuses %s in the workflow interpreter', async (framework) => {
    const errors = await boundaryErrors('libs/workflow/src/violation.ts', `import * as x from '${framework}';\nexport const y = x;\n`);
    expect(errors).toHaveLength(1);
  });

  it('refuses a platform library in a domain library', async () => {
    const errors = await boundaryErrors('libs/contracts/src/violation.ts', `import { InProcessBus } from '@herald/bus';\nexport const y = InProcessBus;\n`);
    expect(errors).toHaveLength(1);
  });

  it('refuses one service importing another', async () => {
    const errors = await boundaryErrors(
      'libs/services/ingest-api/src/violation.ts',
      `import { workflowEngine } from '@herald/workflow-engine';\nexport const y = workflowEngine;\n`,
    );
    expect(errors).toHaveLength(1);
  });

  it('refuses any Herald library in the decider kernel', async () => {
    const errors = await boundaryErrors('libs/platform/decider/src/violation.ts', `import { TOPICS } from '@herald/contracts';\nexport const y = TOPICS;\n`);
    expect(errors).toHaveLength(1);
  });

  it.each(['libs/workflow/src/fine.ts', 'libs/event-store/src/fine.ts'])('lets %s use the decider kernel', async (filePath) => {
    const errors = await boundaryErrors(filePath, `import { fold } from '@herald/decider';\nexport const y = fold;\n`);
    expect(errors).toEqual([]);
  });

  it('refuses an import cycle between files', async () => {
    // run-decider.ts imports node-path.ts; node-path.ts importing it back closes a cycle.
    const [result] = await eslint.lintText(`import { createRunDecider } from './run-decider';\nexport const y = createRunDecider;\n`, {
      filePath: join(root, 'libs/workflow/src/run/node-path.ts'),
    });
    const cycles = result.messages.filter((m) => m.ruleId === 'import-x/no-cycle').map((m) => m.message);
    expect(cycles).toEqual([expect.stringContaining('Dependency cycle')]);
  });

  it('allows a service to use the platform and the contracts', async () => {
    const errors = await boundaryErrors(
      'libs/services/ingest-api/src/fine.ts',
      `import { TOPICS } from '@herald/contracts';\nimport { HeraldLogger } from '@herald/runtime';\nexport const y = [TOPICS, HeraldLogger];\n`,
    );
    expect(errors).toEqual([]);
  });
});

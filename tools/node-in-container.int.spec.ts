// tools/node-in-container.sh: the image's launcher sizes V8's heap to the container's
// memory limit (see the script for why V8's own sizing does not do).

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO_ROOT = join(__dirname, '..');
const SCRIPT = join(REPO_ROOT, 'tools', 'node-in-container.sh');
const MiB = 2 ** 20;

/** Runs a probe under the launcher with `env`; what the started node says of its heap. */
function launch(env: Record<string, string>): { status: number | null; stderr: string; heapLimitMiB: number; execArgv: string[] } {
  const probe = `process.stdout.write(JSON.stringify({ heapLimit: require('v8').getHeapStatistics().heap_size_limit, execArgv: process.execArgv.filter((a) => a.startsWith('--max')) }))`;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('HERALD_') && name !== 'NODE_OPTIONS'));
  // `sh`, as the image runs it (dash on Debian): the script must stay POSIX.
  const result = spawnSync('sh', [SCRIPT, '-e', probe], { env: { ...clean, ...env }, encoding: 'utf8' });
  if (result.status !== 0) return { status: result.status, stderr: result.stderr, heapLimitMiB: NaN, execArgv: [] };
  const { heapLimit, execArgv } = JSON.parse(result.stdout) as { heapLimit: number; execArgv: string[] };
  return { status: 0, stderr: result.stderr, heapLimitMiB: heapLimit / MiB, execArgv };
}

describe('tools/node-in-container.sh', () => {
  it('gives V8 75% of the limit, with a 16 MiB semi-space and the old space the rest', () => {
    // The young generation is 3 semi-spaces: 384 * 0.75 = 288 = 240 + 3 * 16.
    expect(launch({ HERALD_MEMORY_LIMIT_MIB: '384' })).toEqual({
      status: 0,
      stderr: '',
      heapLimitMiB: 288,
      execArgv: ['--max-old-space-size=240', '--max-semi-space-size=16'],
    });
    expect(launch({ HERALD_MEMORY_LIMIT_MIB: '1024' }).heapLimitMiB).toBe(768);
  });

  it('takes another share from HERALD_HEAP_PERCENT', () => {
    expect(launch({ HERALD_MEMORY_LIMIT_MIB: '1000', HERALD_HEAP_PERCENT: '60' }).execArgv).toEqual(['--max-old-space-size=552', '--max-semi-space-size=16']);
  });

  it('leaves the heap to heap flags already given in NODE_OPTIONS', () => {
    const launched = launch({ HERALD_MEMORY_LIMIT_MIB: '384', NODE_OPTIONS: '--max-old-space-size=100' });
    expect(launched.execArgv).toEqual([]);
    // 100 MiB of old space and this Node's default young generation, as plain node has them.
    const plain = spawnSync(process.execPath, ['-e', `process.stdout.write(String(require('v8').getHeapStatistics().heap_size_limit))`], {
      env: { PATH: process.env.PATH, NODE_OPTIONS: '--max-old-space-size=100' },
      encoding: 'utf8',
    });
    expect(launched.heapLimitMiB).toBe(Number(plain.stdout) / MiB);
  });

  it('leaves a limit too small for a 16 MiB semi-space to V8', () => {
    expect(launch({ HERALD_MEMORY_LIMIT_MIB: '128' }).execArgv).toEqual([]);
  });

  it('without HERALD_MEMORY_LIMIT_MIB, reads the cgroup limit as Node does', () => {
    const constrained = process.constrainedMemory?.() ?? 0;
    const limitMiB = constrained > 0 && constrained < 2 ** 46 ? Math.floor(constrained / MiB) : 0;
    const launched = launch({});
    if (limitMiB * 0.75 - 48 >= 64) expect(launched.heapLimitMiB).toBe(Math.floor((limitMiB * 75) / 100));
    else expect(launched.execArgv).toEqual([]);
  });

  it('refuses a limit or a share that is not a whole number', () => {
    const invalid: Array<Record<string, string>> = [{ HERALD_MEMORY_LIMIT_MIB: '512Mi' }, { HERALD_MEMORY_LIMIT_MIB: '512', HERALD_HEAP_PERCENT: '0.7' }];
    for (const env of invalid) {
      const launched = launch(env);
      expect(launched.status).toBe(64);
      expect(launched.stderr).toMatch(/HERALD_MEMORY_LIMIT_MIB and HERALD_HEAP_PERCENT must be whole numbers/);
    }
  });

  it('is how the image starts every service', () => {
    const cmd = readFileSync(join(REPO_ROOT, 'docker', 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('CMD '));
    expect(cmd).toEqual(['CMD ["/bin/sh", "tools/node-in-container.sh", "-r", "./tools/register.js", "apps/herald/src/start-service.ts"]']);
  });
});

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fetchJson, heraldEnv } from '@herald/testing';
import { startEmbeddedHerald } from './embedded-herald';
import { heraldModes } from './testing/herald-modes';

const root = join(__dirname, '..', '..', '..');

/**
 * A lost service token (issue 18): `npm run herald -- service-token create` mints a new
 * one for the existing data, and a HERALD_BOOTSTRAP_* variable set on a later start is
 * reported as ignored instead of silently doing nothing.
 */
describe.each(heraldModes('token'))('a new service token for an existing installation ($name)', (mode) => {
  const firstToken = `hst_${randomBytes(24).toString('base64url')}`;
  let env: NodeJS.ProcessEnv;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    const prepared = await mode.prepare();
    dispose = prepared.dispose;
    env = heraldEnv({ ...prepared.env, HERALD_PORT: '0', HERALD_MANAGEMENT_PORT: '0', HERALD_LOG_LEVEL: 'warn' });
    const first = await startEmbeddedHerald({ ...env, HERALD_BOOTSTRAP_SERVICE_TOKEN: firstToken });
    await first.stop();
  });

  afterAll(async () => {
    await dispose?.();
  });

  it('mints a token that works after a restart, and warns that a later HERALD_BOOTSTRAP_SERVICE_TOKEN is ignored', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['-r', './tools/register.js', 'apps/herald/src/cli.ts', 'service-token', 'create', '--name', 'recovered'], {
      cwd: root,
      env,
    });
    const minted = /service token:\s+(hst_\S+)/.exec(stdout)?.[1];
    expect(minted).toBeDefined();

    const ignoredToken = `hst_${randomBytes(24).toString('base64url')}`;
    const logged: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      logged.push(String(chunk));
      return write(chunk, ...(rest as []));
    });
    const herald = await startEmbeddedHerald({ ...env, HERALD_BOOTSTRAP_SERVICE_TOKEN: ignoredToken });
    spy.mockRestore();
    try {
      const status = async (token: string): Promise<number> =>
        (await fetchJson(`${herald.managementUrl}v1/workspace/`, { headers: { authorization: `ServiceToken ${token}` } })).status;
      expect(await status(minted as string)).toBe(200);
      expect(await status(firstToken)).toBe(200);
      expect(await status(ignoredToken)).toBe(401);
      const warning = logged.map((line) => line.trim()).find((line) => line.includes('HERALD_BOOTSTRAP_* variables ignored'));
      expect(JSON.parse(warning ?? '{}')).toMatchObject({ level: 'warn', ignored: 'HERALD_BOOTSTRAP_SERVICE_TOKEN' });
    } finally {
      await herald.stop();
    }
  });

  it('refuses a data folder that holds no Herald data, saying how to get some', async () => {
    const run = promisify(execFile)(process.execPath, ['-r', './tools/register.js', 'apps/herald/src/cli.ts', 'service-token', 'create'], {
      cwd: root,
      env: heraldEnv({ HERALD_DATA_DIR: join(root, '.herald-test-no-such-dir', randomBytes(4).toString('hex')) }),
    });
    await expect(run).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('no Herald data in') });
  });
});

import { parseArgs } from 'node:util';
import { ConfigError } from '@herald/runtime';
import { mintServiceToken } from './service-token';

const USAGE = `usage: npm run herald -- service-token create [--name <name>] [--workspace <slug>]

  Mints a new service token (management API: Authorization: ServiceToken <token>) for the
  installation named by the environment, as the services read it: HERALD_DATABASE_URL
  (distributed), else the embedded data in HERALD_DATA_DIR (default ./.herald; stop Herald first).
  --workspace picks the account when the database holds several.`;

/** `npm run herald -- <command>`: operator commands that work on the installation's data. */
async function main(argv: readonly string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { name: { type: 'string' }, workspace: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  if (positionals.join(' ') !== 'service-token create') {
    process.stderr.write(`unknown command '${positionals.join(' ')}': the commands are: service-token create\n${USAGE}\n`);
    return 2;
  }
  const minted = await mintServiceToken(process.env, { name: values.name, workspace: values.workspace });
  process.stdout.write(
    [
      '',
      '=== New Herald service token: keep it, it is shown only once ===',
      `service token:    ${minted.token}    (management API: Authorization: ServiceToken <token>)`,
      `name:             ${minted.name}`,
      '==================================================================',
      '',
    ].join('\n'),
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error);
    process.stderr.write(`herald: ${message}\n`);
    process.exit(error instanceof ConfigError || (error instanceof TypeError && 'code' in error) ? 2 : 1);
  },
);

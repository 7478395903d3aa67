// Builds the operator console (apps/console, Vite + React) into apps/console/dist, which
// management-api serves under /console/. Run by `npm ci` (postinstall) and before
// `npm start` and `npm test`, so nobody runs a separate command; it does nothing when
// the build is newer than every source (`--force` builds anyway).
// Where the console's sources or Vite are absent (a production-only install, such as
// the Docker image's dependency stage), it says so and exits 0.
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..');
const CONSOLE = join(ROOT, 'apps', 'console');
const DIST = join(CONSOLE, 'dist');
const BUILT = join(DIST, 'index.html');

function newestSource(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path)
    .filter((name) => name !== 'dist' && name !== 'node_modules')
    .reduce((newest, name) => Math.max(newest, newestSource(join(path, name))), stat.mtimeMs);
}

function upToDate() {
  return existsSync(BUILT) && statSync(BUILT).mtimeMs >= newestSource(CONSOLE);
}

async function buildConsole({ force = false } = {}) {
  if (!existsSync(join(CONSOLE, 'index.html'))) return 'skipped: no console sources here';
  if (!force && upToDate()) return 'up to date';
  let vite;
  try {
    vite = await import('vite');
  } catch {
    return 'skipped: vite is not installed (a production-only install); the console will answer 503';
  }
  await vite.build({ configFile: join(CONSOLE, 'vite.config.mjs'), logLevel: 'warn' });
  return 'built';
}

module.exports = { buildConsole, CONSOLE_DIST: DIST };

if (require.main === module) {
  const started = Date.now();
  buildConsole({ force: process.argv.includes('--force') }).then(
    (outcome) => {
      if (outcome !== 'up to date') console.log(`console (apps/console/dist): ${outcome} in ${Date.now() - started} ms`);
    },
    (error) => {
      console.error('console build failed:', error);
      process.exit(1);
    },
  );
}

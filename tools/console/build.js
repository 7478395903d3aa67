// Builds the operator console (apps/console, Vite + React) into apps/console/dist, which
// management-api serves under /console/. Run by `npm ci` (postinstall) and before
// `npm start` and `npm test`, so nobody runs a separate command; it does nothing when
// the build is newer than every source (`--force` builds anyway).
// Where the console's sources or Vite are absent (a production-only install, such as
// the Docker image's dependency stage), it says so and exits 0.
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..');
const CONSOLE = join(ROOT, 'apps', 'console');
const DIST = join(CONSOLE, 'dist');
const BUILT = join(DIST, 'index.html');
const GENERATED = join(CONSOLE, 'src', 'generated');
/** What the console's API types are generated from: the OpenAPI documents are written in the services' sources. */
const API_SOURCES = [join(ROOT, 'libs'), join(__dirname, 'api-types.ts')];

// The generated API types are types only: they never change the bundle.
function newestSource(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path)
    .filter((name) => name !== 'dist' && name !== 'node_modules' && name !== 'generated')
    .reduce((newest, name) => Math.max(newest, newestSource(join(path, name))), stat.mtimeMs);
}

/**
 * The console's API types (src/generated/), from Herald's OpenAPI documents, in a process
 * of its own (it loads the services' TypeScript): when a library changed since they were
 * written. They are types only, so a production-only install (no openapi-typescript) and
 * the Docker image's console stage (no libraries) skip them.
 */
function generateApiTypes() {
  // The Docker image's console stage holds the console alone: the bundle needs no types.
  if (!existsSync(join(ROOT, 'libs')) || !existsSync(join(ROOT, 'tools', 'register.js'))) return;
  const stamp = join(GENERATED, '.generated');
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= Math.max(...API_SOURCES.map(newestSource))) return;
  try {
    require.resolve('openapi-typescript');
  } catch {
    return;
  }
  execFileSync(process.execPath, ['-r', join(ROOT, 'tools', 'register.js'), join(__dirname, 'api-types.ts')], { cwd: ROOT, stdio: 'inherit' });
  // Unchanged types are not rewritten; the stamp says they were checked against these sources.
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}

function upToDate() {
  return existsSync(BUILT) && statSync(BUILT).mtimeMs >= newestSource(CONSOLE);
}

async function buildConsole({ force = false } = {}) {
  if (!existsSync(join(CONSOLE, 'index.html'))) return 'skipped: no console sources here';
  generateApiTypes();
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

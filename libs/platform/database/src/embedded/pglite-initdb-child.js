// Creates a PGlite data folder (initdb), and, given a second path, its archive (a tar
// that an in-memory PGlite loads instead of running initdb), and exits. Run as a child process by
// EmbeddedPostgres: initdb's WebAssembly instance grows the heap by about 600 MB, which a
// process keeps after it is done, so the long-running process only ever opens folders that
// already exist. Plain JavaScript so it runs under any loader (npm start, jest, the image).
'use strict';
const dataDir = process.argv[2];
const archive = process.argv[3];
if (!dataDir) {
  process.stderr.write('usage: pglite-initdb-child.js <dataDir> [archive.tar]\n');
  process.exit(2);
}
import('@electric-sql/pglite')
  .then(async ({ PGlite }) => {
    const db = new PGlite({ dataDir });
    await db.waitReady;
    if (archive) {
      const tar = await db.dumpDataDir('none');
      require('node:fs').writeFileSync(archive, Buffer.from(await tar.arrayBuffer()));
    }
    await db.close();
  })
  .catch((err) => {
    process.stderr.write(`${err && err.stack ? err.stack : String(err)}\n`);
    process.exit(1);
  });

'use strict';
/**
 * The worker side of SyncWorker (sync-worker.ts). A worker script calls
 * `serve(init)`: `init(workerData)` loads the engine and returns the request
 * handler. Every reply is posted on the private port first and then announced
 * through the shared Int32Array, which the blocked caller waits on.
 *
 * Plain CommonJS on purpose: worker threads run without the TypeScript hook.
 */
const { workerData } = require('node:worker_threads');

function serve(init) {
  const { port, signal } = workerData;
  const reply = (id, payload) => {
    port.postMessage({ id, ...payload });
    Atomics.store(signal, 0, id);
    Atomics.notify(signal, 0);
  };
  init(workerData).then(
    (handle) => {
      port.on('message', (request) => {
        let payload;
        try {
          payload = { ok: true, value: handle(request.body) };
        } catch (error) {
          // A trap inside WebAssembly (out of memory, a Rust panic) leaves the
          // instance unusable: the caller replaces this worker.
          payload = { ok: false, message: String((error && error.message) || error) };
        }
        reply(request.id, payload);
      });
      reply(0, { ok: true, value: 'ready' });
    },
    (error) => reply(0, { ok: false, message: `engine failed to load: ${String((error && error.message) || error)}` }),
  );
}

module.exports = { serve };

'use strict';
/**
 * Worker thread of the jq engine: one jq-wasm handle (jq 1.8.2 compiled to
 * WebAssembly), loaded once from the module the parent compiled. Each request is one
 * run of jq's own command line (`jq.raw`); the parent builds the program and flags
 * and reads the output (jq-engine.ts).
 */
const { serve } = require('../sandbox/sync-worker-host.js');

serve(async ({ jqWasmPath, wasmModule }) => {
  const { loadJq } = require(jqWasmPath);
  const jq = await loadJq({ wasmModule });
  jq.raw('null', '.', ['-c']); // the first run compiles most of the module: not on a caller's clock
  return ({ input, program, flags }) => {
    const { exitCode, stdout, stderr } = jq.raw(input, program, flags);
    return { exitCode, stdout, stderr };
  };
});

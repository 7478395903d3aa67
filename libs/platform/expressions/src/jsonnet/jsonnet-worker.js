'use strict';
/**
 * Worker thread of the Jsonnet engine: one jrsonnet VM (the Rust Jsonnet
 * implementation compiled to WebAssembly, the `@arakoodev/jsonnet` package). The run
 * payload arrives as JSON text in the external variable `__herald_data`; the parent
 * builds the program around the script (jsonnet-engine.ts). jrsonnet's memory grows a
 * little with every evaluation and never shrinks, so each reply says how large the
 * WebAssembly memory is and the parent replaces the worker past a limit.
 */
const { dirname, join } = require('node:path');
const { serve } = require('../sandbox/sync-worker-host.js');

serve(async ({ jsonnetPath }) => {
  const Jsonnet = require(jsonnetPath);
  const bindings = require(join(dirname(jsonnetPath), 'jsonnet_wasm.js'));
  const vm = new Jsonnet();
  const wasmBytes = () => bindings.__wasm.memory.buffer.byteLength;
  vm.extString('__herald_data', 'null');
  vm.evaluateSnippet('std.length([1])'); // warm up: not on a caller's clock
  // A Rust panic (e.g. "capacity overflow" for a huge array) is written with
  // console.error before the trap: keep it for the error message, off the logs.
  let panic = '';
  console.error = (...args) => {
    panic = args.map(String).join(' ').split('\n\nStack:')[0].replace(/\s+/g, ' ').trim();
  };
  return ({ program, data }) => {
    panic = '';
    try {
      vm.extString('__herald_data', data);
      const output = vm.evaluateSnippet(program);
      return { output, wasmBytes: wasmBytes() };
    } catch (error) {
      const trap = String((error && error.message) || error);
      throw new Error(panic ? `${panic} (${trap})` : trap);
    }
  };
});

import { ExpressionEngines, hasJsonnetOnlySyntax, isJqSyntaxError } from '@herald/expressions';
import { RunExpressions } from '@herald/workflow';

/** The interpreter's expression port on the real engines: jq 1.8 and jrsonnet, sandboxed in worker threads. */
export function runExpressions(engines: ExpressionEngines): RunExpressions {
  return {
    jq: (filter, input, variables) => {
      const compiled = engines.jq.compile(filter);
      if (isJqSyntaxError(compiled)) return { ok: false, error: compiled.message };
      const result = compiled.evaluate(input, variables);
      return result.ok ? { ok: true, outputs: result.outputs } : { ok: false, error: result.error.message };
    },
    jsonnet: (source, data) => {
      const result = engines.jsonnet.evaluate(source, data);
      return result.ok ? { ok: true, value: result.value } : { ok: false, error: result.error.message };
    },
    // decisions.md: a value is Jsonnet only when written as Jsonnet and it parses; otherwise it is used as written.
    isLiteral: (value) => !hasJsonnetOnlySyntax(value) || engines.jsonnet.check(value) !== undefined,
  };
}

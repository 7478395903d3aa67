import { JqEngine, JqEngineOptions, createJqEngine } from './jq/jq-engine';
import { JsonnetEngine, JsonnetEngineOptions, createJsonnetEngine } from './jsonnet/jsonnet-engine';

export {
  CompiledJq,
  HERALD_JQ_VARIABLES,
  JqEngine,
  JqEngineOptions,
  JqErrorKind,
  JqEvaluationError,
  JqResult,
  JqSyntaxError,
  createJqEngine,
  isJqSyntaxError,
} from './jq/jq-engine';
export {
  JsonnetEngine,
  JsonnetEngineOptions,
  JsonnetErrorKind,
  JsonnetEvaluationError,
  JsonnetResult,
  JsonnetSyntaxError,
  JsonnetTemplateResult,
  createJsonnetEngine,
  isJsonnetSyntaxError,
} from './jsonnet/jsonnet-engine';
export { hasJsonnetOnlySyntax } from './jsonnet/template-value';

export interface ExpressionEngines {
  readonly jq: JqEngine;
  readonly jsonnet: JsonnetEngine;
  /** Stops both engines' worker threads. */
  close(): Promise<void>;
}

export interface ExpressionEnginesOptions {
  readonly jq?: JqEngineOptions;
  readonly jsonnet?: JsonnetEngineOptions;
}

/**
 * The jq and Jsonnet engines a service uses. Each runs in its own worker thread,
 * started on first use; create them once per process and close them on shutdown.
 */
export function createExpressionEngines(options: ExpressionEnginesOptions = {}): ExpressionEngines {
  const jq = createJqEngine(options.jq);
  const jsonnet = createJsonnetEngine(options.jsonnet);
  return {
    jq,
    jsonnet,
    close: async () => {
      await Promise.all([jq.close(), jsonnet.close()]);
    },
  };
}

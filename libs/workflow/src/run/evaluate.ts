import { RunExpressions } from './ports';
import { RunScope } from './run-scope';

/** A value, or why there is none: dynamic values written by clients fail this way, never by throwing. */
export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(error: string): Result<T> => ({ ok: false, error });

/** All outputs of a jq filter over the scope. A throwing engine counts as an error, not a crash. */
export function jqOutputs(expressions: RunExpressions, filter: string, scope: RunScope): Result<readonly unknown[]> {
  try {
    const outcome = expressions.jq(filter, scope.data, scope.variables);
    return outcome.ok ? ok(outcome.outputs) : fail(`jq error: ${outcome.error}`);
  } catch (error) {
    return fail(`jq error: ${describe(error)}`);
  }
}

/** The first output of a jq filter; no output at all is an error. */
export function jqFirst(expressions: RunExpressions, filter: string, scope: RunScope): Result<unknown> {
  const outputs = jqOutputs(expressions, filter, scope);
  if (!outputs.ok) return outputs;
  return outputs.value.length === 0 ? fail(`jq filter ${quote(filter)} produced no output`) : ok(outputs.value[0]);
}

export function jsonnetValue(expressions: RunExpressions, source: string, scope: RunScope): Result<unknown> {
  try {
    const outcome = expressions.jsonnet(source, scope.data);
    return outcome.ok ? ok(outcome.value) : fail(`Jsonnet error: ${outcome.error}`);
  } catch (error) {
    return fail(`Jsonnet error: ${describe(error)}`);
  }
}

/** A url, header, query or condition value: a plain literal as written, else Jsonnet. */
export function templateValue(expressions: RunExpressions, value: string, scope: RunScope): Result<unknown> {
  let literal: boolean;
  try {
    literal = expressions.isLiteral(value);
  } catch (error) {
    return fail(`Jsonnet error: ${describe(error)}`);
  }
  return literal ? ok(value) : jsonnetValue(expressions, value, scope);
}

/** A short, single-line rendering of a value for failure reasons. */
export function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  if (text.length <= 120) return text;
  // Cut before a surrogate pair rather than through it: half an emoji is a lone surrogate, which a failure reason cannot be stored with.
  const cut = isHighSurrogate(text.charCodeAt(116)) ? 116 : 117;
  return `${text.slice(0, cut)}...`;
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

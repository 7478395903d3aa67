import { JqOutcome, JsonnetOutcome, RunExpressions } from '../ports';

/**
 * A tiny stand-in for jq and Jsonnet, enough for the interpreter's tests (libs/workflow
 * cannot import the real engines). The engine host's tests run the real ones.
 *
 * jq: `.`, `.a.b`, `.a.b[]` (one output per element), `$recipient.a`, `empty`,
 * `error("why")`, and JSON literals (`"x"`, `300`, `["email"]`).
 * Jsonnet: `data`, `data.a.b`, `data["$recipient"].email`, JSON literals, `error "why"`,
 * and `+` between such terms (strings concatenate, numbers add).
 * A value is a literal unless it holds a quote, a bracket, or the word data, std or error.
 */
export const fakeExpressions: RunExpressions = {
  jq: (filter, input, variables) => fakeJq(filter.trim(), input, variables),
  jsonnet: (source, data) => fakeJsonnet(source.trim(), data),
  isLiteral: (value) => !/["'()[\]{}]|\b(?:data|std|error)\b/.test(value),
};

function fakeJq(filter: string, input: unknown, variables: Readonly<Record<string, unknown>>): JqOutcome {
  if (filter === 'empty') return { ok: true, outputs: [] };
  const error = /^error\("(.*)"\)$/.exec(filter);
  if (error !== null) return { ok: false, error: error[1] };
  const literal = parseJson(filter);
  if (literal.ok) return { ok: true, outputs: [literal.value] };
  const variable = /^\$(\w+)((?:\.[\w$]+)*)$/.exec(filter);
  if (variable !== null) return { ok: true, outputs: [walk(variables[variable[1]] ?? null, variable[2])] };
  const path = /^((?:\.[\w$]+)*|\.)(\[\])?$/.exec(filter);
  if (path === null) return { ok: false, error: `the fake jq does not understand ${filter}` };
  const value = walk(input, path[1] === '.' ? '' : path[1]);
  if (path[2] === undefined) return { ok: true, outputs: [value] };
  return Array.isArray(value) ? { ok: true, outputs: value } : { ok: false, error: `Cannot iterate over ${typeof value}` };
}

function fakeJsonnet(source: string, data: unknown): JsonnetOutcome {
  const error = /^error "(.*)"$/.exec(source);
  if (error !== null) return { ok: false, error: `RUNTIME ERROR: ${error[1]}` };
  const terms = source.split(/\s\+\s/).map((term) => jsonnetTerm(term.trim(), data));
  const failed = terms.find((term) => !term.ok);
  if (failed !== undefined) return failed;
  const values = terms.map((term) => (term.ok ? term.value : undefined));
  if (values.length === 1) return { ok: true, value: values[0] };
  if (values.every((value) => typeof value === 'number')) return { ok: true, value: values.reduce((a, b) => a + b, 0) };
  return { ok: true, value: values.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join('') };
}

function jsonnetTerm(term: string, data: unknown): JsonnetOutcome {
  const literal = parseJson(term);
  if (literal.ok) return literal;
  const path = /^data((?:\.[\w$]+|\["[^"]+"\])*)$/.exec(term);
  if (path === null) return { ok: false, error: `the fake Jsonnet does not understand ${term}` };
  const dotted = path[1].replace(/\["([^"]+)"\]/g, '.$1');
  return { ok: true, value: walk(data, dotted) };
}

function walk(root: unknown, dotted: string): unknown {
  let value = root;
  for (const key of dotted.split('.').filter((part) => part !== '')) {
    value = typeof value === 'object' && value !== null ? ((value as Record<string, unknown>)[key] ?? null) : null;
  }
  return value;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, error: 'not JSON' };
  }
}

import { FieldError, INPUT_LIMITS, JsonRecord, inputHygieneProblems } from '@herald/contracts';
import { DEFAULT_BODY_CONTENT_TYPE, HttpFetchNode, HttpWebhookNode, KeyValue } from '../definition';
import { isRecord } from './comparison';
import { Result, fail, jsonnetValue, ok, quote, templateValue } from './evaluate';
import { RunExpressions } from './ports';
import { HttpRequest } from './run-events';
import { HttpResponse } from './run-inputs';
import { RunScope } from './run-scope';

/** How long the host's client waits for one attempt; its retries come on top. */
export const HTTP_TIMEOUT_MS = 30_000;

/**
 * Evaluates a webhook or fetch node into a request: url, header and query values are
 * literals or Jsonnet (a value must come out as a string, number or boolean; a url as
 * an http(s) URL), the webhook body is Jsonnet and may be any JSON.
 */
export function buildRequest(node: HttpWebhookNode | HttpFetchNode, requestId: string, scope: RunScope, expressions: RunExpressions): Result<HttpRequest> {
  const url = textValue('url', node.url, scope, expressions);
  if (!url.ok) return url;
  if (!isHttpUrl(url.value)) return fail(`url ${quote(url.value)} is not an http(s) URL`);
  const headers = keyValues('headers', node.headers ?? [], scope, expressions);
  if (!headers.ok) return headers;
  const query = keyValues('query_params', node.query_params ?? [], scope, expressions);
  if (!query.ok) return query;
  const body = node.node_type === 'httpapi_webhook' ? webhookBody(node, scope, expressions) : ok(undefined);
  if (!body.ok) return body;
  return ok({
    request_id: requestId,
    method: node.http_method,
    url: url.value,
    headers: headers.value,
    query: query.value,
    ...(body.value === undefined ? {} : { body: body.value.body, body_content_type: body.value.contentType }),
    timeout_ms: HTTP_TIMEOUT_MS,
  });
}

function webhookBody(node: HttpWebhookNode, scope: RunScope, expressions: RunExpressions): Result<{ body: unknown; contentType: string } | undefined> {
  if (node.body === undefined) return ok(undefined);
  const body = jsonnetValue(expressions, node.body, scope);
  if (!body.ok) return fail(`body: ${body.error}`);
  return ok({ body: body.value, contentType: node.body_content_type ?? DEFAULT_BODY_CONTENT_TYPE });
}

function keyValues(field: string, entries: readonly KeyValue[], scope: RunScope, expressions: RunExpressions): Result<readonly KeyValue[]> {
  const evaluated: KeyValue[] = [];
  for (const [index, entry] of entries.entries()) {
    const value = textValue(`${field}[${index}] (${entry.key})`, entry.value, scope, expressions);
    if (!value.ok) return value;
    evaluated.push({ key: entry.key, value: value.value });
  }
  return ok(evaluated);
}

function textValue(field: string, written: string, scope: RunScope, expressions: RunExpressions): Result<string> {
  const value = templateValue(expressions, written, scope);
  if (!value.ok) return fail(`${field}: ${value.error}`);
  const text = value.value;
  if (typeof text === 'string') return ok(text);
  if (typeof text === 'number' || typeof text === 'boolean') return ok(String(text));
  return fail(`${field} gave ${quote(text)}, not a string`);
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * What a final response does to the run: a 2xx merges its body (under `output_key`,
 * or its fields at the root; an empty body merges nothing), anything else fails the run.
 */
export type ResponseEffect =
  | { readonly kind: 'merge'; readonly key?: string; readonly value: unknown }
  | { readonly kind: 'nothing' }
  | { readonly kind: 'fail'; readonly reason: string };

/** The limits an answer is held to besides storability: the edge's (INPUT_LIMITS), or none for runs started before revision 3. */
export type AnswerLimits = typeof INPUT_LIMITS | typeof NO_ANSWER_LIMITS;
export const NO_ANSWER_LIMITS = { maxDepth: Infinity, maxKeysPerObject: Infinity } as const;

/**
 * A 2xx answer passes the check the API edge applies to a trigger's data before any of
 * it is merged: a NUL or a lone surrogate (in a value or a key) cannot be stored in the
 * run's events, and merging it left the run `running` for ever, its events refused by
 * Postgres at every attempt. Such an answer fails the node with the first problem's path.
 */
export function responseEffect(node: HttpWebhookNode | HttpFetchNode, target: string, response: HttpResponse, limits: AnswerLimits = INPUT_LIMITS): ResponseEffect {
  if (response.kind === 'network_error') return { kind: 'fail', reason: `${target} failed: ${response.error}` };
  if (response.status < 200 || response.status > 299) return { kind: 'fail', reason: `${target} answered HTTP ${response.status}` };
  const body = response.body;
  const problems = inputHygieneProblems(body, '', limits);
  if (problems.length > 0) return { kind: 'fail', reason: `${target} answered a body that cannot be taken: ${describeProblems(problems)}` };
  if (node.output_key !== undefined && node.output_key !== '') return { kind: 'merge', key: node.output_key, value: body ?? null };
  if (body === undefined || body === null || body === '') return { kind: 'nothing' };
  if (!isRecord(body)) return { kind: 'fail', reason: `${target} answered ${quote(body)}, not a JSON object to merge at the root (set output_key)` };
  return { kind: 'merge', value: body as JsonRecord };
}

/** `items[3].name contains a NUL character …`, the first of them, and how many more there are. */
function describeProblems(problems: readonly FieldError[]): string {
  const [first] = problems;
  const where = first.path === '' ? 'the body' : first.path;
  return problems.length === 1 ? `${where} ${first.message}` : `${where} ${first.message} (and ${problems.length - 1} more problems)`;
}

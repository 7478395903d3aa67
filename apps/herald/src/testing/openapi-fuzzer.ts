import { SeededRandom } from '@herald/testing';

type Schema = Record<string, unknown>;

/** One operation of an OpenAPI document: what the fuzzer sends requests to. */
export interface FuzzOperation {
  readonly method: string;
  /** The path template, `/v1/user/{distinct_id}/`. */
  readonly template: string;
  readonly pathParams: readonly string[];
  readonly queryParams: ReadonlyArray<{ readonly name: string; readonly schema: Schema }>;
  readonly bodySchema: Schema | undefined;
}

export interface FuzzRequest {
  readonly label: string;
  readonly method: string;
  /** Path and query, already percent-encoded, without the leading slash. */
  readonly target: string;
  readonly body: string | Buffer | undefined;
}

/** What a fuzzed request may use to get past authentication and the workspace lookup, so it reaches deeper code. */
export interface FuzzContext {
  /** Values for path parameters by name (the workspace slug, a workspace key): used for most requests. */
  readonly knownParams: Readonly<Record<string, string>>;
  /** Path parameter values that must never be used (the data the test checks afterwards). */
  readonly reserved: ReadonlySet<string>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of the document, so an endpoint added later is fuzzed without touching the test. */
export function operationsOf(document: { paths: Record<string, Record<string, unknown>>; components?: unknown }): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    const shared = (item.parameters as Schema[] | undefined) ?? [];
    for (const method of METHODS) {
      const operation = item[method] as Schema | undefined;
      if (!operation) continue;
      const parameters = [...shared, ...((operation.parameters as Schema[] | undefined) ?? [])].map((p) => resolve(document, p));
      const body = operation.requestBody ? resolve(document, operation.requestBody as Schema) : undefined;
      const content = (body?.content as Record<string, { schema?: Schema }> | undefined)?.['application/json'];
      operations.push({
        method: method.toUpperCase(),
        template,
        pathParams: [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => ({ name: String(p.name), schema: (p.schema as Schema | undefined) ?? {} })),
        bodySchema: content?.schema ? resolve(document, content.schema) : undefined,
      });
    }
  }
  return operations;
}

function resolve(document: unknown, schema: Schema): Schema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 10; hops += 1) {
    const path = current.$ref.replace(/^#\//, '').split('/');
    current = path.reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], document) as Schema;
    if (!current) return {};
  }
  return current;
}

/** Strings Postgres cannot store or code may choke on. */
const HOSTILE_STRINGS = ['\u0000', 'a\u0000b', '\ud800', 'x\udc00y', '\udbff\udfff\ud800', '', ' ', '\u202e\u0007', '../../etc/passwd', '%00', '{{constructor.constructor}}', '__proto__', '🎉'.repeat(3)];
const HOSTILE_NUMBERS = [0, -1, -0, 1e308, -1e308, 5e-324, 9007199254740993, 2 ** 31, -(2 ** 63), 0.1, 1e21, 123456789012345678901234567890];
/** Raw JSON text (also numbers JSON.stringify cannot produce). */
const HOSTILE_NUMBER_TEXT = ['1e400', '-1e400', '1e-400', '0.00000000000000000000000000000000000001', '123456789012345678901234567890123456789', '-0'];

/** A value of a random hostile class. */
function hostileValue(rng: SeededRandom, depth = 0): unknown {
  switch (rng.between(0, 11)) {
    case 0:
      return rng.pick(HOSTILE_STRINGS);
    case 1:
      return rng.pick(HOSTILE_NUMBERS);
    case 2:
      return null;
    case 3:
      return rng.pick([true, false]);
    case 4:
      return 'x'.repeat(rng.pick([300, 5_000, 70_000]));
    case 5:
      return depth > 2 ? [] : Array.from({ length: rng.between(0, 4) }, () => hostileValue(rng, depth + 1));
    case 6:
      return depth > 2 ? {} : Object.fromEntries(Array.from({ length: rng.between(0, 4) }, () => [hostileKey(rng), hostileValue(rng, depth + 1)]));
    case 7:
      return { [rng.pick(['\u0000', 'k\ud800', '\udfff', 'a.b', '$set', 'constructor', ''])]: rng.pick(HOSTILE_STRINGS) };
    case 8:
      return nestedValue(rng.pick([65, 200, 2_000]));
    case 9:
      return Object.fromEntries(Array.from({ length: rng.pick([1_001, 10_001]) }, (_, i) => [`k${i}`, i]));
    case 10:
      return Array.from({ length: rng.pick([101, 1_001, 20_000]) }, (_, i) => (i % 2 === 0 ? i : `v${i}`));
    default:
      return rng.string(rng.between(1, 12));
  }
}

function hostileKey(rng: SeededRandom): string {
  return rng.chance(0.3) ? rng.pick(['\u0000', 'k\ud800', '\udc00', '$email', '__proto__', 'constructor', '', ' ']) : rng.string(rng.between(1, 8));
}

function nestedValue(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { n: value };
  return value;
}

/**
 * A value shaped by `schema` (its properties, items, enums and types), with a hostile
 * value in some places, so a request gets past the first type checks and reaches the
 * code behind them.
 */
function fromSchema(rng: SeededRandom, schema: Schema | undefined, document: unknown, depth: number, hostility: number): unknown {
  if (!schema || depth > 6) return hostileValue(rng, 2);
  const resolved = resolve(document, schema);
  if (rng.chance(hostility)) return hostileValue(rng, depth);
  const variants = (resolved.oneOf ?? resolved.anyOf) as Schema[] | undefined;
  if (variants && variants.length > 0) return fromSchema(rng, rng.pick(variants), document, depth + 1, hostility);
  if (Array.isArray(resolved.enum) && resolved.enum.length > 0) return rng.pick(resolved.enum as unknown[]);
  const type = Array.isArray(resolved.type) ? rng.pick(resolved.type as string[]) : resolved.type;
  switch (type) {
    case 'object': {
      const properties = (resolved.properties as Record<string, Schema> | undefined) ?? {};
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(properties)) if (rng.chance(0.8)) out[key] = fromSchema(rng, sub, document, depth + 1, hostility);
      if (rng.chance(0.2)) out[hostileKey(rng)] = hostileValue(rng, depth + 1);
      return out;
    }
    case 'array':
      return Array.from({ length: rng.between(0, 3) }, () => fromSchema(rng, resolved.items as Schema | undefined, document, depth + 1, hostility));
    case 'integer':
    case 'number':
      return rng.chance(0.5) ? rng.between(-2, 200) : rng.pick(HOSTILE_NUMBERS);
    case 'boolean':
      return rng.chance(0.5);
    case 'string':
      return rng.chance(0.6) ? rng.string(rng.between(1, 16)) : rng.pick(HOSTILE_STRINGS);
    case 'null':
      return null;
    default:
      return hostileValue(rng, depth);
  }
}

/** Broken or hostile JSON text: cut, deep, invalid UTF-8, numbers JSON.stringify cannot write. */
function hostileText(rng: SeededRandom, shaped: string): string | Buffer {
  switch (rng.between(0, 6)) {
    case 0:
      return shaped.slice(0, rng.between(0, Math.max(0, shaped.length - 1)));
    case 1:
      return `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    case 2:
      return `{"a":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_001)}`;
    case 3:
      return Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xed, 0xa0, 0x80, 0xc0, 0xaf]), Buffer.from('","\xff":1}', 'latin1')]);
    case 4:
      return `{"value":${rng.pick(HOSTILE_NUMBER_TEXT)},"n":${rng.pick(HOSTILE_NUMBER_TEXT)}}`;
    case 5:
      return rng.pick(['null', '[]', '"text"', '0', 'true', '{}', '[{}]', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}']);
    default:
      return `{"k":"${'\\u0000'.repeat(3)}","\\ud800":"\\udfff"}`;
  }
}

/** A path parameter value: mostly a known one, else hostile, percent-encoded (NUL, an encoded lone surrogate, overlong). */
function pathParam(rng: SeededRandom, name: string, context: FuzzContext): string {
  const known = context.knownParams[name];
  if (known !== undefined && rng.chance(0.8)) return encodeURIComponent(known);
  const raw = rng.pick(['%00', 'a%00b', '%ED%A0%80', '%F0%9F%8E%89', '%FF%FE', '%C0%AF', 'x'.repeat(2_000), '..%2F..', '%20', rng.string(8), rng.string(12), '__proto__', 'constructor', '%E2%80%AE']);
  return context.reserved.has(raw) ? `${raw}-x` : raw;
}

function queryValue(rng: SeededRandom, schema: Schema): string {
  if (rng.chance(0.4)) return rng.pick(['%00', 'a%00', '%ED%A0%80', '%FF', '-1', '1e400', '99999999999999999999', 'x'.repeat(3_000), 'true', '', '%5B%5D']);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return encodeURIComponent(String(rng.pick(schema.enum as unknown[])));
  return schema.type === 'integer' || schema.type === 'number' ? String(rng.between(-5, 500)) : encodeURIComponent(rng.string(rng.between(1, 10)));
}

/** One fuzzed request for `operation`. */
export function fuzzRequest(rng: SeededRandom, operation: FuzzOperation, context: FuzzContext, document: unknown, index: number): FuzzRequest {
  let path = operation.template;
  for (const name of operation.pathParams) path = path.replace(`{${name}}`, pathParam(rng, name, context));
  const query = operation.queryParams
    .filter(() => rng.chance(0.5))
    .map((p) => `${encodeURIComponent(p.name)}=${queryValue(rng, p.schema)}`);
  if (rng.chance(0.1)) query.push(`${rng.pick(['%00', 'k%ED%A0%80', 'a[b][c]'])}=${rng.pick(['1', '%00'])}`);
  const target = `${path.replace(/^\//, '')}${query.length > 0 ? `?${query.join('&')}` : ''}`;
  let body: string | Buffer | undefined;
  // fetch sends no body with a GET; a DELETE may carry one (list members, SDK habits).
  if (operation.method !== 'GET' && rng.chance(operation.method === 'DELETE' ? 0.3 : 0.95)) {
    const shaped = JSON.stringify(operation.bodySchema ? fromSchema(rng, operation.bodySchema, document, 0, rng.pick([0.05, 0.2, 0.5])) : hostileValue(rng));
    body = rng.chance(0.12) ? hostileText(rng, shaped) : shaped;
  }
  return { label: `#${index} ${operation.method} ${operation.template}`, method: operation.method, target, body };
}

/**
 * The peer of bench/database/round-trips.bench.ts: StatementBatch as it was before issue 40
 * (commit 6f927f7), the statements of a transaction as one simple-protocol query whose
 * parameters were inlined as literals by a client-side lexer. Kept here, unused by Herald,
 * so the bound-parameter pipeline that replaced it is measured beside it in one run.
 */
import { DataSource, QueryRunner } from 'typeorm';
import { SqlWriter } from '@herald/database';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue(value: unknown): unknown };

/**
 * The statements of one transaction, sent to Postgres in one round trip.
 *
 * Why: on the 2-vCPU VMs Herald is measured on, a round trip to Postgres costs about as
 * much as a small statement's work: each is a write that wakes the backend and a read
 * that wakes the client again. Five statements of 12 rows of about 1 KB took 5.2-5.4 ms,
 * 2.3-2.4 ms of the client's CPU and 2.6-2.8 ms of the backend's as a TypeORM
 * transaction (seven round trips), and 4.0-4.1 ms, 1.3-1.4 ms and 2.5 ms in one round
 * trip (`bench/database/round-trips.bench.ts`, 2026-11-29; bench/RESULTS.md, "Outbox,
 * round trips and Kafka clients").
 *
 * How: the statements travel as one simple-protocol query, which Postgres runs as one
 * implicit transaction: all of them or none (the first failure rolls back the others
 * and is what `run` rejects with). Each statement sees what the ones before it wrote,
 * as in any transaction. The simple protocol takes no parameters, so each `$n` becomes
 * the literal of the text node-postgres would have bound for it (`pg`'s own
 * `prepareValue`, then quoted). node-postgres binds every parameter as text of unknown
 * type, and Postgres infers an unknown literal's type from its context the same way,
 * so each statement means what it meant with parameters.
 *
 * Writers only: `query` records the statement and resolves with no rows.
 */
export class InlinedStatementBatch implements SqlWriter {
  /** The statements' text in pieces, joined once when sent (a transaction's text can be hundreds of kB). */
  private readonly pieces: string[] = [];
  private statements = 0;

  async query(sql: string, parameters: readonly unknown[] = []): Promise<unknown[]> {
    const before = this.pieces.length;
    if (this.statements > 0) this.pieces.push(';\n');
    try {
      inlineParametersInto(this.pieces, sql, parameters);
    } catch (error) {
      this.pieces.length = before;
      throw error;
    }
    this.statements++;
    return [];
  }

  get length(): number {
    return this.statements;
  }

  /** The statements as one text, each with its parameters inlined. */
  text(): string {
    return this.pieces.join('');
  }

  /** Runs the statements as one transaction, in one round trip; rejects with Postgres's error, having written nothing. */
  async run(dataSource: DataSource): Promise<void> {
    if (this.statements === 0) return;
    const runner = dataSource.createQueryRunner();
    try {
      await simpleQuery(runner, this.text());
    } finally {
      await runner.release();
    }
  }
}

/** What node-postgres answers a simple-protocol query with: one result, or one per statement. */
type SimpleQueryResult = { rows: unknown[] } | Array<{ rows: unknown[] }>;

/**
 * Sends `text` (one or more statements, no parameters: see `inlineParameters`) on the
 * runner's connection in one simple-protocol query; resolves with its last statement's rows.
 */
export async function simpleQuery<T>(runner: QueryRunner, text: string): Promise<T[]> {
  const connection = (await runner.connect()) as { query(text: string): Promise<SimpleQueryResult> };
  const result = await connection.query(text);
  const last = Array.isArray(result) ? result[result.length - 1] : result;
  return (last?.rows ?? []) as T[];
}

/**
 * `sql` with each parameter placeholder (`$1`, `$2`, ...) replaced by its value as a
 * literal. Placeholders inside quoted strings, quoted identifiers, comments and
 * dollar-quoted bodies are left alone, as Postgres's parser leaves them.
 */
export function inlineParameters(sql: string, parameters: readonly unknown[]): string {
  const pieces: string[] = [];
  inlineParametersInto(pieces, sql, parameters);
  return pieces.join('');
}

/**
 * `inlineParameters`, appending the text's pieces to `pieces` (the caller joins them
 * once: appending character by character made the text out of as many intermediate
 * strings as it has characters).
 */
function inlineParametersInto(pieces: string[], sql: string, parameters: readonly unknown[]): void {
  let copied = 0;
  let i = 0;
  while (i < sql.length) {
    SPECIAL.lastIndex = i;
    if (!SPECIAL.test(sql)) break;
    i = SPECIAL.lastIndex - 1;
    const c = sql[i];
    const next = sql[i + 1];
    let end: number;
    if (c === "'" || c === '"') end = closingQuote(sql, i, c);
    else if (c === '-') end = next === '-' ? lineEnd(sql, i) : i + 1;
    else if (c === '/') end = next === '*' ? blockCommentEnd(sql, i) : i + 1;
    else if (next !== undefined && next >= '0' && next <= '9') {
      let j = i + 1;
      while (j < sql.length && sql[j] >= '0' && sql[j] <= '9') j++;
      const n = Number(sql.slice(i + 1, j));
      if (n < 1 || n > parameters.length) throw new Error(`statement refers to $${n} but has ${parameters.length} parameter(s)`);
      pieces.push(sql.slice(copied, i), literal(parameters[n - 1]));
      copied = i = j;
      continue;
    } else end = dollarQuoteEnd(sql, i);
    i = end;
  }
  pieces.push(copied === 0 ? sql : sql.slice(copied));
}

/** Where a placeholder, a quoted string or identifier, a comment or a dollar quote may begin. */
const SPECIAL = /['"$\-/]/g;

/**
 * A value as a Postgres literal: the text node-postgres binds for it, quoted, or NULL.
 * Text without a quote or a backslash goes in single quotes as it is; other text in
 * dollar quotes (`$v$...$v$`, a tag the text does not hold), which take it as it is
 * too: the large values (a batch's events as one JSON document, columns of hundreds of
 * values) are not copied to double their quotes and backslashes, which was most of
 * what building an engine transaction's text allocated. Either is a string constant of
 * unknown type, as a bound parameter is. Text with a NUL is refused as Postgres refuses
 * it as a bound parameter (SQLSTATE 22021, a data error): in a query's text it would
 * end the protocol message early, which Postgres answers as a protocol violation
 * (08P01, a connection-class error a caller would retry for ever).
 */
export function literal(value: unknown): string {
  const text = Array.isArray(value) ? arrayText(value) : prepareValue(value);
  if (text === null || text === undefined) return 'NULL';
  if (Buffer.isBuffer(text)) return `E'\\\\x${text.toString('hex')}'`;
  const s = String(text);
  if (!NEEDS_ESCAPE.test(s)) return `'${s}'`;
  if (s.includes('\0')) throw new NulInText();
  return dollarQuoted(s);
}

/**
 * `s` between dollar quotes whose tag (`$v$`, `$v1$`, `$v2$`, ...: the first free one)
 * neither occurs in it nor completes with its end (`...$v` + `$v$`). One pass over `s`
 * collects the candidate names it holds: trying the names one by one, each with a scan
 * of `s`, was quadratic in a value made of tags (`'$v$$v1$$v2$...`), which held the
 * event loop for half a minute on a body under the size limit.
 */
function dollarQuoted(s: string): string {
  const n = firstFreeTagNumber(s);
  const tag = n === 0 ? '$v$' : `$v${n}$`;
  return `${tag}${s}${tag}`;
}

/**
 * The smallest n whose tag (`$v$` for 0, `$v<n>$` otherwise) neither occurs in `s` nor
 * completes with its end. A name that blocks a tag is `$v` and a digit run followed by
 * `$` or by the end of `s`; the regular expression does not backtrack (the run is taken
 * whole, then the next character is looked at), and matches may share a `$`
 * (`$v$v1$` holds `$v$` and `$v1$`), so it resumes right after the digits. At most one
 * name per three characters occurs, so the first free n is at most their count.
 */
function firstFreeTagNumber(s: string): number {
  const taken = new Set<number>();
  const name = /\$v(\d*)/g;
  for (let match = name.exec(s); match !== null; match = name.exec(s)) {
    const after = name.lastIndex;
    if (after < s.length && s[after] !== '$') continue;
    const digits = match[1];
    // Only `v` and `v` with a number without leading zeros are candidate names (`v0`, `v01` are never chosen).
    if (digits === '') taken.add(0);
    else if (digits[0] !== '0' && digits.length <= 9) taken.add(Number(digits));
  }
  let n = 0;
  while (taken.has(n)) n++;
  return n;
}

const NEEDS_ESCAPE = /['\\\0]/;
const NEEDS_ELEMENT_ESCAPE = /["\\]/;

/**
 * An array as node-postgres's `prepareValue` writes it (`{"a","b",NULL}`), element for
 * element the same text, built from pieces joined once and escaping only the elements
 * that need it: the engine's appends pass columns of hundreds of values, and pg's own
 * version was most of what building a transaction's text allocated.
 */
function arrayText(values: readonly unknown[]): string {
  const pieces: string[] = [];
  for (const item of values) pieces.push(arrayElement(item));
  return `{${pieces.join(',')}}`;
}

function arrayElement(item: unknown): string {
  if (item === null || item === undefined) return 'NULL';
  if (Array.isArray(item)) return arrayText(item);
  if (ArrayBuffer.isView(item)) return `\\\\x${Buffer.from(item.buffer, item.byteOffset, item.byteLength).toString('hex')}`;
  const text = String(typeof item === 'string' ? item : prepareValue(item));
  return NEEDS_ELEMENT_ESCAPE.test(text) ? `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : `"${text}"`;
}

/** Past the quote that closes the one at `start` (a doubled quote is part of the text). */
function closingQuote(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return sql.length;
}

function lineEnd(sql: string, start: number): number {
  const end = sql.indexOf('\n', start);
  return end === -1 ? sql.length : end;
}

function blockCommentEnd(sql: string, start: number): number {
  const end = sql.indexOf('*/', start + 2);
  return end === -1 ? sql.length : end + 2;
}

/** Past a dollar-quoted body (`$$...$$`, `$tag$...$tag$`) starting at `start`, or just past a lone `$`. */
function dollarQuoteEnd(sql: string, start: number): number {
  const tag = /^\$[A-Za-z_]?[A-Za-z0-9_]*\$/.exec(sql.slice(start));
  if (tag === null) return start + 1;
  const close = sql.indexOf(tag[0], start + tag[0].length);
  return close === -1 ? sql.length : close + tag[0].length;
}

/** What Postgres answers a bound parameter whose text holds a NUL with, with its SQLSTATE. */
export class NulInText extends Error {
  override readonly name = 'NulInText';
  readonly code = '22021';
  constructor() {
    super('invalid byte sequence for encoding "UTF8": 0x00');
  }
}

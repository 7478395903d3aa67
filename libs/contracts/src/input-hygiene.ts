import { FieldError } from './envelope';

/**
 * The limits every edge (both HTTP APIs, the Kafka ingress) applies to a parsed JSON
 * input before any code walks it recursively. Real bodies sit far below them: the
 * deepest documents Herald takes (workflow trees with nested branches) stay under 30
 * levels. Past them, recursive code elsewhere (JSON.stringify, class-transformer)
 * would overflow the stack.
 */
export const INPUT_LIMITS = {
  /** Levels of nested objects and arrays; the root is level 1. */
  maxDepth: 64,
  /** Keys of one object. */
  maxKeysPerObject: 10_000,
} as const;

/** Past this many, further problems are counted, not listed: a hostile body must not become a huge 400. */
const MAX_LISTED_PROBLEMS = 20;

interface Visit {
  readonly value: unknown;
  readonly parent: Visit | undefined;
  /** The key or index under the parent (undefined at the root). */
  readonly step: string | number | undefined;
  readonly depth: number;
}

/**
 * What Postgres cannot store, and what the limits refuse, in a parsed JSON value (a
 * body, a query, path parameters), each with its field path: NUL characters and lone
 * UTF-16 surrogates in strings and in keys, nesting past `maxDepth`, objects with more
 * than `maxKeysPerObject` keys. The walk is iterative (an explicit stack), so a
 * 100,000-deep value is refused instead of overflowing the stack, and it never
 * descends past the first level that breaks a limit. Empty when the value is clean.
 */
export function inputHygieneProblems(value: unknown, root = '', limits: { maxDepth: number; maxKeysPerObject: number } = INPUT_LIMITS): FieldError[] {
  const problems: FieldError[] = [];
  let unlisted = 0;
  const report = (visit: Visit, message: string, key?: string): void => {
    if (problems.length < MAX_LISTED_PROBLEMS) problems.push({ path: pathOf(visit, root, key), message });
    else unlisted += 1;
  };
  const stack: Visit[] = [{ value, parent: undefined, step: undefined, depth: 1 }];
  while (stack.length > 0) {
    const visit = stack.pop() as Visit;
    const current = visit.value;
    if (typeof current === 'string') {
      const problem = unstorableTextProblem(current);
      if (problem) report(visit, problem);
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (visit.depth > limits.maxDepth) {
      report(visit, `is nested too deeply: at most ${limits.maxDepth} levels of objects and arrays are accepted`);
      continue;
    }
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index -= 1) {
        stack.push({ value: current[index], parent: visit, step: index, depth: visit.depth + 1 });
      }
      continue;
    }
    const keys = Object.keys(current);
    if (keys.length > limits.maxKeysPerObject) {
      report(visit, `has ${keys.length} keys: at most ${limits.maxKeysPerObject} keys per object are accepted`);
      continue;
    }
    const children: Visit[] = [];
    for (const key of keys) {
      const keyProblem = unstorableTextProblem(key);
      if (keyProblem) report(visit, `key ${keyProblem}`, key);
      else children.push({ value: (current as Record<string, unknown>)[key], parent: visit, step: key, depth: visit.depth + 1 });
    }
    // Reversed onto the stack, so problems are listed in document order.
    for (let index = children.length - 1; index >= 0; index -= 1) stack.push(children[index]);
  }
  if (unlisted > 0) problems.push({ path: root, message: `and ${unlisted} more problems of the same kinds` });
  return problems;
}

/** `String.prototype.isWellFormed` (Node 20), which the ES2022 lib the repository compiles against does not declare. */
type WellFormedCheck = string & { isWellFormed(): boolean };
type WellFormedFix = string & { toWellFormed(): string };

interface TextFrame {
  readonly isObject: boolean;
  /** Objects: keys seen. Arrays: the current item's index (commas seen). */
  count: number;
  /** Objects: whether the next string is a key. */
  expectKey: boolean;
  /** Where the current key's JSON string starts and ends in the text (objects); decoded only for a path. */
  keyStart: number;
  keyEnd: number;
}

/**
 * The nesting and key-count limits checked on JSON text before it is parsed: one pass
 * from one structural character to the next (native regular expressions do the
 * skipping), an explicit stack of at most `maxDepth` frames, stopping at the first
 * breach. `JSON.parse` itself spends most of a second on a megabyte of `[[[[…`, so such
 * text must be refused before it. Malformed text is left to the parser, which reports
 * it. Answers the problem with its path (`data.items[3]`), or undefined.
 */
export function jsonTextNestingProblem(text: string, limits: { maxDepth: number; maxKeysPerObject: number } = INPUT_LIMITS): FieldError | undefined {
  const structural = /["{}[\],]/g;
  const stringEnd = /["\\]/g;
  const frames: TextFrame[] = [];
  const pathHere = (): string => {
    let path = '';
    for (const frame of frames) {
      if (!frame.isObject) path += `[${frame.count}]`;
      else if (frame.keyEnd > frame.keyStart) path = appendKey(path, JSON.parse(text.slice(frame.keyStart, frame.keyEnd)) as string);
    }
    return path;
  };
  for (let match = structural.exec(text); match !== null; match = structural.exec(text)) {
    const at = match.index;
    const char = text[at];
    const frame = frames[frames.length - 1] as TextFrame | undefined;
    if (char === '"') {
      let end = at + 1;
      for (;;) {
        stringEnd.lastIndex = end;
        const found = stringEnd.exec(text);
        if (found === null) return undefined; // unterminated: the parser reports it
        if (text[found.index] === '"') {
          end = found.index;
          break;
        }
        end = found.index + 2;
      }
      structural.lastIndex = end + 1;
      if (frame?.isObject && frame.expectKey) {
        frame.expectKey = false;
        frame.count += 1;
        if (frame.count > limits.maxKeysPerObject) {
          frame.keyEnd = frame.keyStart;
          return safely(() => ({ path: pathHere(), message: `has more than ${limits.maxKeysPerObject} keys: at most ${limits.maxKeysPerObject} keys per object are accepted` }));
        }
        frame.keyStart = at;
        frame.keyEnd = end + 1;
      }
    } else if (char === '{' || char === '[') {
      if (frames.length + 1 > limits.maxDepth) {
        return safely(() => ({ path: pathHere(), message: `is nested too deeply: at most ${limits.maxDepth} levels of objects and arrays are accepted` }));
      }
      frames.push({ isObject: char === '{', count: 0, expectKey: char === '{', keyStart: 0, keyEnd: 0 });
    } else if (char === '}' || char === ']') {
      frames.pop();
    } else if (frame?.isObject) {
      frame.expectKey = true;
    } else if (frame) {
      frame.count += 1;
    }
  }
  return undefined;
}

/** The problem, or undefined when a key on its path is malformed: the parser then reports the text. */
function safely(problem: () => FieldError): FieldError | undefined {
  try {
    return problem();
  } catch {
    return undefined;
  }
}

function appendKey(path: string, key: string): string {
  if (/^[A-Za-z0-9_$-]+$/.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${jsonQuoted(key)}]`;
}

/**
 * The text with what Postgres (text and jsonb) cannot store replaced by U+FFFD: a NUL,
 * and a lone UTF-16 surrogate (a cut emoji). For text Herald did not receive from a
 * client but must store anyway, such as a vendor's answer: a client's input with these
 * is refused instead (`inputHygieneProblems`).
 */
export function storableText(text: string): string {
  const wellFormed = (text as WellFormedCheck).isWellFormed() ? text : (text as WellFormedFix).toWellFormed();
  return wellFormed.includes('\u0000') ? wellFormed.replace(/\u0000/g, '\uFFFD') : wellFormed;
}

/** Why Postgres (text and jsonb) cannot store this string, or undefined when it can. */
export function unstorableTextProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character (\\u0000), which cannot be stored';
  if (!(text as WellFormedCheck).isWellFormed()) return 'contains a lone UTF-16 surrogate (invalid Unicode), which cannot be stored';
  return undefined;
}

/**
 * `data.items[3].name` from the root to the visit (plus `key`). Keys that are not plain
 * identifiers are quoted as JSON strings, so a path naming a bad key shows it escaped
 * (`data["a\u0000b"]`) instead of carrying the character itself.
 */
function pathOf(visit: Visit, root: string, key?: string): string {
  const steps: Array<string | number> = key === undefined ? [] : [key];
  for (let at: Visit | undefined = visit; at?.step !== undefined; at = at.parent) steps.push(at.step);
  let path = root;
  for (let index = steps.length - 1; index >= 0; index -= 1) {
    const step = steps[index];
    if (typeof step === 'number') path += `[${step}]`;
    else if (/^[A-Za-z0-9_$-]+$/.test(step)) path += path === '' ? step : `.${step}`;
    else path += `[${jsonQuoted(step)}]`;
  }
  return path;
}

/** A JSON string literal, with lone surrogates escaped too (JSON.stringify keeps them as \uXXXX already). */
function jsonQuoted(text: string): string {
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}

/**
 * Limits of one stored profile (a user's or an object's, global or one tenant's),
 * checked before or while a change is applied, never after a slow one. 256 KiB keeps a
 * profile an ordinary jsonb row and, with its envelope, far inside one Kafka message
 * (the broker's `message.max.bytes` is 1 MiB): the announcement carries one profile,
 * a broadcast's member trigger the tenant's merged over the global one (2 × 256 KiB).
 * Shared by preference-service (which applies changes) and ingest-api (which refuses an
 * identity event past them with a 400 instead of accepting what cannot be applied).
 */
export const PROFILE_LIMITS = {
  /** Bytes of the stored profile (its properties and channels as JSON) after the change. */
  maxBytes: 256 * 1024,
  /** Properties (top-level keys) of one profile. */
  maxProperties: 1_000,
  /** Changes in one request: the keys of an upsert body; the keys (and `$unset` names) of a PATCH's or an identity event's operations. */
  maxChangesPerRequest: 1_000,
} as const;

/** How many changes a list of profile operations asks for: each key of an operation's arguments, each `$unset` name. */
export function countProfileChanges(operations: readonly unknown[]): number {
  let count = 0;
  for (const operation of operations) {
    if (typeof operation !== 'object' || operation === null || Array.isArray(operation)) {
      count += 1;
      continue;
    }
    for (const args of Object.values(operation)) {
      count += Array.isArray(args) ? args.length : typeof args === 'object' && args !== null ? Object.keys(args).length : 1;
    }
  }
  return count;
}

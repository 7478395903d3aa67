import { DURATION_EXAMPLE, parseDuration } from './duration';
import { FieldReader } from './field-reader';
import { DefinitionValidationContext } from './validation-context';

/**
 * Readers of the expression-typed fields: fixed durations, jq and Jsonnet. An optional
 * field holding an empty string counts as absent (editors send "" for an unset field);
 * a required one must not be blank.
 */

export interface DurationOptions {
  readonly required?: boolean;
  /** For windows, where a zero duration makes no sense. */
  readonly positive?: boolean;
}

export function readDuration(fields: FieldReader, name: string, options: DurationOptions = {}): string | undefined {
  const text = fields.string(name, { required: options.required });
  if (text === undefined || text === '') return undefined;
  const ms = parseDuration(text);
  if (ms === undefined) return report(fields, name, `must be a duration like ${DURATION_EXAMPLE}`);
  if (options.positive === true && ms === 0) return report(fields, name, `must be a duration longer than zero, like ${DURATION_EXAMPLE}`);
  return text;
}

export function readJq(
  fields: FieldReader,
  name: string,
  context: DefinitionValidationContext,
  options: { readonly required?: boolean; readonly minLength?: number } = {},
): string | undefined {
  const expression = fields.string(name, { required: options.required });
  if (expression === undefined || expression === '') return undefined;
  if (options.minLength !== undefined && expression.length < options.minLength) {
    return report(fields, name, `must be at least ${options.minLength} characters`);
  }
  const problem = context.jqSyntaxError(expression);
  return problem === undefined ? expression : report(fields, name, `invalid jq expression: ${problem}`);
}

/** A field that is always a Jsonnet script (a webhook body). */
export function readJsonnet(fields: FieldReader, name: string, context: DefinitionValidationContext): string | undefined {
  const source = fields.string(name);
  if (source === undefined || source === '') return undefined;
  return checkJsonnet(fields, name, source, context);
}

export function checkJsonnet(fields: FieldReader, name: string, source: string, context: DefinitionValidationContext): string | undefined {
  const problem = context.jsonnetSyntaxError(source);
  return problem === undefined ? source : report(fields, name, `invalid Jsonnet: ${problem}`);
}

const JSONNET_OPENINGS = ['"', "'", '@"', "@'", '|||', '{', '[', '(', 'std.', 'data.', 'data[', 'local ', 'if '];

/**
 * Whether a url, header value or query value is meant as Jsonnet rather than a plain
 * literal used as written (decisions.md: "a url or header value that is a plain
 * literal is used as written"). It is Jsonnet when, after leading blanks, it opens
 * with a string literal (`"`, `'`, `@"`, `|||`), an object, array or parenthesis,
 * `std.`, a `data.`/`data[` reference, `local ` or `if `. Characters elsewhere in the
 * value (`+`, `%`, quotes) do not count: a literal URL carries `+` and `%` escapes,
 * and an unquoted literal followed by `+ data.x` is not valid Jsonnet anyway.
 */
export function looksLikeJsonnet(value: string): boolean {
  const text = value.trimStart();
  return JSONNET_OPENINGS.some((opening) => text.startsWith(opening));
}

function report(fields: FieldReader, name: string, message: string): undefined {
  fields.report(name, message);
  return undefined;
}

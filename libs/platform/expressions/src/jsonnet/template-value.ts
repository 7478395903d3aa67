/**
 * When is a url, header or query value Jsonnet, and when is it a plain literal?
 * (decisions.md: "a url or header value that is a plain literal (not a Jsonnet
 * expression) is used as written".)
 *
 * Many plain values also happen to parse as Jsonnet, with another meaning:
 * `application/json` and `no-cache` are subtractions and divisions of unknown
 * variables, `2024-01-01` is the number 2022, `+33612345678` loses its plus sign, `1e3`
 * becomes 1000. So parsing alone cannot decide. The rule:
 *
 *   A value is a Jsonnet expression when BOTH hold:
 *   1. it is written with syntax that only Jsonnet gives a meaning to: a quote (`"` or
 *      `'`), a bracket or brace (`(` `)` `[` `]` `{` `}`), a text block (`|||`), or one of
 *      the words `data`, `std`, `local`, `if`, `function`, `self`, `super`, `error`,
 *      `assert`, `import`, `importstr`, `importbin` standing as a whole word (not part of
 *      a longer name: `metadata`, `data_id` and `stdout` do not count);
 *   2. it parses as Jsonnet (JsonnetEngine.check finds no error).
 *   Any other value is a literal, used exactly as written (not trimmed).
 *
 * So `https://example.com/hook`, `application/json`, `Bearer abc123`, `no-cache`, `42`,
 * `+33612345678` and `https://x/{{id}}` are literals; `"https://x/" + data.id`,
 * `data["$recipient"].email`, `std.toString(data.count)` and `'quoted'` are Jsonnet.
 * A text that names `data` and still parses (`data-center`) is Jsonnet and fails when
 * run (no variable `center`): quote it (`'data-center'`) to send it as written.
 */
const JSONNET_ONLY_SYNTAX =
  /["'()[\]{}]|\|\|\||(?<![A-Za-z0-9_])(?:data|std|local|if|function|self|super|error|assert|import|importstr|importbin)(?![A-Za-z0-9_])/;

/** Condition 1 of the rule above (the parse check is the engine's). */
export function hasJsonnetOnlySyntax(value: string): boolean {
  return JSONNET_ONLY_SYNTAX.test(value);
}

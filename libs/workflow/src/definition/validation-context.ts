/**
 * What validation needs from outside the domain, implemented by the caller: the jq
 * and Jsonnet parsers, and the workspace's templates and categories. Syntax checks
 * return a short description of the first syntax error, or undefined when the source
 * parses.
 */
export interface DefinitionValidationContext {
  jqSyntaxError(expression: string): string | undefined;
  jsonnetSyntaxError(source: string): string | undefined;
  templateExists(slug: string): boolean;
  categoryExists(slug: string): boolean;
}

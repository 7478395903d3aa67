/**
 * What validating a workflow needs from outside management's own tables: the
 * expression languages' parsers (jq, Jsonnet) and the live templates. Ports, so
 * the workflow validator stays pure and each part can be tested on its own.
 */
export interface ExpressionSyntax {
  jqSyntaxError(expression: string): string | undefined;
  jsonnetSyntaxError(source: string): string | undefined;
}

export interface TemplateCatalogue {
  /** Slugs of the workspace's templates that a workflow may send. */
  templateSlugs(workspaceId: string): Promise<Set<string>>;
}

export const EXPRESSION_SYNTAX = Symbol('EXPRESSION_SYNTAX');
export const TEMPLATE_CATALOGUE = Symbol('TEMPLATE_CATALOGUE');

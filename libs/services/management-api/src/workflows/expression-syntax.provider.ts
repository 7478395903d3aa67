import { Inject, Injectable, OnModuleDestroy, Provider } from '@nestjs/common';
import { ExpressionEngines, createExpressionEngines, isJqSyntaxError } from '@herald/expressions';
import { EXPRESSION_SYNTAX, ExpressionSyntax } from './workflow-validation-ports';

const EXPRESSION_ENGINES = Symbol('EXPRESSION_ENGINES');

/** Stops the engines' worker threads with the application. */
@Injectable()
export class ExpressionEnginesLifecycle implements OnModuleDestroy {
  constructor(@Inject(EXPRESSION_ENGINES) private readonly engines: ExpressionEngines) {}

  async onModuleDestroy(): Promise<void> {
    await this.engines.close();
  }
}

/** Workflow validation parses jq and Jsonnet with the same engines the workflow engine runs. */
export const EXPRESSION_SYNTAX_PROVIDERS: Provider[] = [
  { provide: EXPRESSION_ENGINES, useFactory: (): ExpressionEngines => createExpressionEngines() },
  ExpressionEnginesLifecycle,
  {
    provide: EXPRESSION_SYNTAX,
    inject: [EXPRESSION_ENGINES],
    useFactory: (engines: ExpressionEngines): ExpressionSyntax => ({
      jqSyntaxError: (expression) => {
        const compiled = engines.jq.compile(expression);
        return isJqSyntaxError(compiled) ? compiled.message : undefined;
      },
      jsonnetSyntaxError: (source) => engines.jsonnet.check(source)?.message,
    }),
  },
];

/**
 * mjml 5 ships no types (@types/mjml describes 4, whose mjml2html was synchronous):
 * the part Herald calls.
 */
declare module 'mjml' {
  interface MjmlError {
    readonly line: number;
    readonly message: string;
    readonly tagName: string;
    readonly formattedMessage: string;
  }
  interface MjmlOptions {
    readonly validationLevel?: 'strict' | 'soft' | 'skip';
    readonly ignoreIncludes?: boolean;
    readonly keepComments?: boolean;
    readonly minify?: boolean;
  }
  export default function mjml2html(source: string, options?: MjmlOptions): Promise<{ html: string; errors: MjmlError[] }>;
}

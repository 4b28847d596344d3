import ts from 'typescript';
import type { Plugin } from 'vite';

/**
 * Compiles the files that use TC39 standard decorators with TypeScript before Vite sees them:
 * Vite 8's transformer (oxc) parses them but does not lower them, and Node 20 cannot run them.
 * Users on Node compile with tsc, tsx or esbuild ≥ 0.21; Bun and Deno run them natively.
 */
export function standardDecorators(include: RegExp): Plugin {
  return {
    name: 'cachette:standard-decorators',
    enforce: 'pre',
    transform(code, id) {
      if (!include.test(id)) return undefined;
      const out = ts.transpileModule(code, {
        fileName: id,
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, sourceMap: true, verbatimModuleSyntax: true, rewriteRelativeImportExtensions: false },
      });
      return { code: out.outputText, map: out.sourceMapText ?? null };
    },
  };
}

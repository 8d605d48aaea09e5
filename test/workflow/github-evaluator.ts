import { data, Evaluator, Lexer, Parser, type Expr } from '@actions/expressions';

/**
 * An expression evaluated by `@actions/expressions` alone: its lexer, parser and evaluator, with
 * no contexts and no functions but GitHub's. An empty expression is null. Throws what it throws.
 */
export function githubEvaluate(source: string): data.ExpressionData {
  const tree = new Parser(new Lexer(source).lex().tokens, [], []).parse() as Expr | undefined;
  return tree === undefined ? new data.Null() : new Evaluator(tree, new data.Dictionary()).evaluate();
}

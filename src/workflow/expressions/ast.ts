import type { FunctionName } from './functions.js';
import type { ComparisonOperator } from './values.js';

/**
 * The parsed form of one `${{ … }}` expression. Chains (`a || b || c`, `a.b[0].c`) are single
 * nodes with a list, so the tree's depth is bounded by the parser's nesting limit and evaluation
 * never recurses once per link of a long chain. Every `offset` is the node's start within the
 * whole template string.
 */
export type Expression = Literal | ContextReference | StepReference | Access | Not | Logical | Comparison | Call;

export type ContextRoot = 'inputs' | 'env' | 'secrets' | 'rho' | 'matrix';

export interface Literal {
  kind: 'literal';
  value: null | boolean | number | string;
  offset: number;
}

/** `inputs`, `env`, `secrets`, `rho` or `matrix` as a whole object. */
export interface ContextReference {
  kind: 'context';
  root: ContextRoot;
  offset: number;
}

/** `steps.<id>` (or `steps['<id>']`): the id is always static, so dependencies are known before running. */
export interface StepReference {
  kind: 'step';
  id: string;
  offset: number;
}

/** `object.a[b]…`: each key is an expression (a `.name` is a string literal). */
export interface Access {
  kind: 'access';
  object: Expression;
  keys: Expression[];
  offset: number;
}

export interface Not {
  kind: 'not';
  operand: Expression;
  offset: number;
}

/** `a && b && …` or `a || b || …`, evaluated left to right with short-circuit. */
export interface Logical {
  kind: 'logical';
  operator: '&&' | '||';
  operands: Expression[];
  offset: number;
}

/** `first op1 x1 op2 x2 …` on one precedence level, folded left to right. */
export interface Comparison {
  kind: 'comparison';
  first: Expression;
  rest: { operator: ComparisonOperator; operand: Expression }[];
  offset: number;
}

export interface Call {
  kind: 'call';
  name: FunctionName;
  args: Expression[];
  offset: number;
}

import type { Call, ContextRoot, Expression, StepReference } from './ast.js';
import { atOffset, ExpressionError } from './errors.js';
import { parseFormatFor } from './format.js';
import { arityProblem, functionList, lookupFunction } from './functions.js';
import type { SymbolText, Token } from './tokens.js';
import type { ComparisonOperator } from './values.js';

/** Deepest nesting of parentheses, `!`, call arguments and index brackets an expression may use. */
export const maxNesting = 64;

const contextRoots: readonly ContextRoot[] = ['inputs', 'env', 'secrets', 'rho', 'matrix'];
const stepFields: readonly string[] = ['status', 'output', 'data'];
const equalityOperators: readonly ComparisonOperator[] = ['==', '!='];
const relationalOperators: readonly ComparisonOperator[] = ['<', '<=', '>', '>='];

/**
 * Parses the tokens of one expression (ending with the `}}` token) into a tree, by recursive
 * descent over the precedence levels `||` < `&&` < `== !=` < `< <= > >=` < `!` < access.
 */
export function parseExpression(tokens: readonly Token[]): Expression {
  return new Parser(tokens).parseWhole();
}

class Parser {
  private position = 0;
  private nesting = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  parseWhole(): Expression {
    if (this.peek().kind === 'end') throw new ExpressionError('empty expression: write an expression between "${{" and "}}"', this.peek().offset);
    const expression = this.parseOr();
    const next = this.peek();
    if (next.kind !== 'end') throw new ExpressionError(`unexpected ${describe(next)}; expected an operator or "}}"`, next.offset);
    return expression;
  }

  private parseOr(): Expression {
    return this.parseLogical('||', () => this.parseAnd());
  }

  private parseAnd(): Expression {
    return this.parseLogical('&&', () => this.parseEquality());
  }

  private parseLogical(operator: '&&' | '||', parseOperand: () => Expression): Expression {
    const operands = [parseOperand()];
    while (this.acceptSymbol(operator)) operands.push(parseOperand());
    return operands.length === 1 ? operands[0]! : { kind: 'logical', operator, operands, offset: operands[0]!.offset };
  }

  private parseEquality(): Expression {
    return this.parseComparison(equalityOperators, () => this.parseRelational());
  }

  private parseRelational(): Expression {
    return this.parseComparison(relationalOperators, () => this.parseUnary());
  }

  private parseComparison(operators: readonly ComparisonOperator[], parseOperand: () => Expression): Expression {
    const first = parseOperand();
    const rest: { operator: ComparisonOperator; operand: Expression }[] = [];
    for (;;) {
      const token = this.peek();
      const operator = operators.find((candidate) => token.kind === 'symbol' && token.text === candidate);
      if (operator === undefined) break;
      this.position += 1;
      rest.push({ operator, operand: parseOperand() });
    }
    return rest.length === 0 ? first : { kind: 'comparison', first, rest, offset: first.offset };
  }

  private parseUnary(): Expression {
    const token = this.peek();
    if (!this.acceptSymbol('!')) return this.parseAccess();
    return this.nested(token, () => ({ kind: 'not', operand: this.parseUnary(), offset: token.offset }));
  }

  private parseAccess(): Expression {
    const object = this.parsePrimary();
    const keys: Expression[] = [];
    for (;;) {
      const token = this.peek();
      let key: Expression;
      if (this.acceptSymbol('.')) {
        const name = this.next();
        if (name.kind !== 'identifier') throw new ExpressionError('expected a property name after "."', name.offset);
        key = { kind: 'literal', value: name.name, offset: name.offset };
      } else if (this.acceptSymbol('[')) {
        key = this.nested(token, () => this.parseOr());
        this.expectSymbol(']', 'to close "["');
      } else {
        break;
      }
      if (object.kind === 'step' && keys.length === 0) checkStepField(object, key);
      keys.push(key);
    }
    return keys.length === 0 ? object : { kind: 'access', object, keys, offset: object.offset };
  }

  private parsePrimary(): Expression {
    const token = this.next();
    switch (token.kind) {
      case 'literal':
        return { kind: 'literal', value: token.value, offset: token.offset };
      case 'identifier':
        if (this.acceptSymbol('(')) return this.parseCall(token.name, token.offset);
        if (token.name === 'steps') return this.parseStepReference(token.offset);
        if ((contextRoots as readonly string[]).includes(token.name)) {
          return { kind: 'context', root: token.name as ContextRoot, offset: token.offset };
        }
        throw new ExpressionError(`unknown context "${token.name}"; expressions can read inputs, steps, env, secrets, rho and matrix`, token.offset);
      case 'symbol':
        if (token.text === '(') {
          const inner = this.nested(token, () => this.parseOr());
          this.expectSymbol(')', 'to close "("');
          return inner;
        }
        break;
      case 'end':
        break;
    }
    throw new ExpressionError(`unexpected ${describe(token)}; expected a value`, token.offset);
  }

  /** After `name(`: the arguments, the closing `)`, and the checks that need no values. */
  private parseCall(rawName: string, offset: number): Call {
    const name = lookupFunction(rawName);
    if (name === undefined) throw new ExpressionError(`unknown function "${rawName}"; available: ${functionList()}`, offset);
    const args: Expression[] = [];
    if (!this.acceptSymbol(')')) {
      do {
        args.push(this.nested(this.peek(), () => this.parseOr()));
      } while (this.acceptSymbol(','));
      this.expectSymbol(')', `to close the arguments of ${name}()`);
    }
    const arity = arityProblem(name, args.length);
    if (arity !== undefined) throw new ExpressionError(arity, offset);
    const call: Call = { kind: 'call', name, args, offset };
    if (name === 'format') checkLiteralFormat(call);
    return call;
  }

  /** `steps.<id>` or `steps['<id>']`: anything else would hide which step is needed. */
  private parseStepReference(offset: number): StepReference {
    if (this.acceptSymbol('.')) {
      const id = this.next();
      if (id.kind === 'identifier') return { kind: 'step', id: id.name, offset };
    } else if (this.acceptSymbol('[')) {
      const id = this.next();
      if (id.kind === 'literal' && typeof id.value === 'string') {
        this.expectSymbol(']', 'to close "["');
        return { kind: 'step', id: id.value, offset };
      }
    }
    throw new ExpressionError('"steps" must be followed by a step id, as in steps.build.status or steps[\'build\'].output', offset);
  }

  private nested<T>(token: Token, parse: () => T): T {
    if (this.nesting >= maxNesting) throw new ExpressionError(`expression is nested deeper than ${maxNesting} levels`, token.offset);
    this.nesting += 1;
    const result = parse();
    this.nesting -= 1;
    return result;
  }

  private peek(): Token {
    return this.tokens[this.position]!;
  }

  /** The next token; never moves past the final `}}`. */
  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.position += 1;
    return token;
  }

  private acceptSymbol(text: SymbolText): boolean {
    const token = this.peek();
    if (token.kind !== 'symbol' || token.text !== text) return false;
    this.position += 1;
    return true;
  }

  private expectSymbol(text: SymbolText, purpose: string): void {
    const token = this.peek();
    if (!this.acceptSymbol(text)) throw new ExpressionError(`expected "${text}" ${purpose}, found ${describe(token)}`, token.offset);
  }
}

function checkStepField(step: StepReference, key: Expression): void {
  if (key.kind !== 'literal' || typeof key.value !== 'string' || stepFields.includes(key.value)) return;
  throw new ExpressionError(`steps.${step.id} has no "${key.value}"; use status, output or data`, key.offset);
}

/** A literal format string is checked now, so `rho validate` reports it before anything runs. */
function checkLiteralFormat(call: Call): void {
  const format = call.args[0]!;
  if (format.kind !== 'literal' || typeof format.value !== 'string') return;
  const value = format.value;
  atOffset(format.offset, () => parseFormatFor(value, call.args.length - 1));
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'end':
      return '"}}"';
    case 'identifier':
      return `"${token.name}"`;
    case 'symbol':
      return `"${token.text}"`;
    case 'literal':
      if (typeof token.value === 'string') return `string '${token.value}'`;
      return typeof token.value === 'number' ? `number ${token.value}` : String(token.value);
  }
}

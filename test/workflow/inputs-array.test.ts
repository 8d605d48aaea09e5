import { describe, expect, it } from 'vitest';
import { evaluateDeep, type ExpressionContext } from '../../src/workflow/expressions/index.js';
import { parseInputs } from '../../src/workflow/inputs.js';

describe('array inputs and pass-through arguments', () => {
  const declared = { args: { type: 'array' as const }, tags: { type: 'array' as const, default: ['a'] }, name: { type: 'string' as const } };

  it('collects every -i of an array input, in order, and what followed -- as args', () => {
    expect(parseInputs(['tags=x', 'name=n', 'tags=y'], declared, ['--watch', 'src'])).toEqual({ args: ['--watch', 'src'], tags: ['x', 'y'], name: 'n' });
    expect(parseInputs([], declared)).toEqual({ args: [], tags: ['a'] });
  });

  it('refuses pass-through arguments when no array input named args is declared', () => {
    expect(() => parseInputs([], { name: { type: 'string' } }, ['x'])).toThrow(/declare inputs: \{ args: \{ type: array \} \}/);
  });
});

describe('splicing lists into lists', () => {
  const context: ExpressionContext = { inputs: { args: ['-v', 'x y'], none: [] }, steps: {}, env: {}, secrets: {}, run: { failed: false, cancelled: false } };

  it('splices an item that is one whole expression yielding a list; anything else keeps its place', () => {
    expect(evaluateDeep(['test', '${{ inputs.args }}', 'end'], context)).toEqual(['test', '-v', 'x y', 'end']);
    expect(evaluateDeep(['${{ inputs.none }}'], context)).toEqual([]);
    expect(evaluateDeep(["all: ${{ join(inputs.args, ',') }}"], context)).toEqual(['all: -v,x y']);
    expect(evaluateDeep({ args: '${{ inputs.args }}' }, context)).toEqual({ args: ['-v', 'x y'] });
  });
});

import { describe, expect, it } from 'vitest';
import { evaluateDeep, evaluateTemplate, ExpressionError, isTruthy, parseTemplate, walkTemplates, type ExpressionContext } from '../../src/workflow/expressions/index.js';

function makeContext(overrides: Partial<ExpressionContext> = {}): ExpressionContext {
  return {
    inputs: { tag: 'v1.2.0', count: 3, dry: false, list: ['Alpha', 'beta'], nested: { deep: { value: 7 } } },
    steps: {
      build: { status: 'success', output: 'Built OK\n', data: { files: ['a.js', 'b.js'], meta: { 'odd key': 1, version: '2.0' } } },
      lint: { status: 'failure', output: '', data: null },
    },
    env: { MODE: 'production' },
    secrets: { TOKEN: 's3cret-value' },
    run: { failed: false, cancelled: false },
    ...overrides,
  };
}

const context = makeContext();
const evaluate = (text: string, using: ExpressionContext = context) => evaluateTemplate(parseTemplate(text), using);

function evaluationError(text: string): ExpressionError {
  const template = parseTemplate(text);
  try {
    evaluateTemplate(template, context);
  } catch (error) {
    expect(error).toBeInstanceOf(ExpressionError);
    return error as ExpressionError;
  }
  throw new Error(`expected ${JSON.stringify(text)} to fail`);
}

describe('literals', () => {
  it.each([
    ["${{ 'it''s' }}", "it's"],
    ["${{ 'it''s ''quoted''' }}", "it's 'quoted'"],
    ["${{ 'a \\n b' }}", 'a \\n b'],
    ['${{ 42 }}', 42],
    ['${{ -1.5 }}', -1.5],
    ['${{ 2e3 }}', 2000],
    ['${{ 0xff }}', 255],
    ['${{ .5 }}', 0.5],
    ['${{ 0o17 }}', 15],
    ['${{ 0b101 }}', 5],
    ['${{ Infinity }}', Number.POSITIVE_INFINITY],
    ['${{ NaN }}', Number.NaN],
    ['${{ true }}', true],
    ['${{ false }}', false],
    ['${{ null }}', null],
  ])('%s evaluates to %j', (text, value) => {
    expect(evaluate(text)).toEqual(value);
  });
});

describe('types of results', () => {
  it('keeps the type of a whole-string expression', () => {
    expect(evaluate('${{ inputs.count }}')).toBe(3);
    expect(evaluate('${{ inputs.dry }}')).toBe(false);
    expect(evaluate('${{ steps.build.data }}')).toEqual(context.steps.build!.data);
    expect(evaluate('${{ inputs.list }}')).toEqual(['Alpha', 'beta']);
    expect(evaluate('${{ inputs.missing }}')).toBeNull();
  });

  it('interpolates embedded expressions as text, as GitHub Actions writes them', () => {
    expect(evaluate('n=${{ inputs.count }} dry=${{ inputs.dry }} none=[${{ inputs.missing }}]')).toBe('n=3 dry=false none=[]');
    // GitHub Actions writes an array as "Array" and an object as "Object"; toJSON() gives JSON.
    expect(evaluate('files: ${{ steps.build.data.files }} meta: ${{ steps.build.data.meta }}')).toBe('files: Array meta: Object');
    expect(evaluate('files: ${{ toJSON(steps.build.data.files) }}')).toBe('files: [\n  "a.js",\n  "b.js"\n]');
    expect(evaluate('x=${{ 1.10 }}')).toBe('x=1.1');
    expect(evaluate(' ${{ inputs.count }}')).toBe(' 3');
    expect(evaluate('${{ 1 }}${{ 2 }}')).toBe('12');
  });

  it('returns a literal string unchanged', () => {
    expect(evaluate('plain $ { text } with {{ braces }}')).toBe('plain $ { text } with {{ braces }}');
    expect(evaluate('')).toBe('');
  });
});

describe('contexts and property access', () => {
  it('reads every context', () => {
    expect(evaluate('${{ inputs.tag }}')).toBe('v1.2.0');
    expect(evaluate('${{ env.MODE }}')).toBe('production');
    expect(evaluate('${{ secrets.TOKEN }}')).toBe('s3cret-value');
    expect(evaluate('${{ steps.build.status }}')).toBe('success');
    expect(evaluate('${{ steps.build.output }}')).toBe('Built OK\n');
  });

  it('never evaluates text that came from a step as an expression', () => {
    const evil = makeContext({ steps: { fetch: { status: 'success', output: '${{ secrets.TOKEN }}', data: { body: "x ${{ fromJSON('!') }}" } } } });
    expect(evaluate('${{ steps.fetch.output }}', evil)).toBe('${{ secrets.TOKEN }}');
    expect(evaluate('got ${{ steps.fetch.data.body }}', evil)).toBe("got x ${{ fromJSON('!') }}");
    expect(evaluateDeep({ value: '${{ steps.fetch.output }}' }, evil)).toEqual({ value: '${{ secrets.TOKEN }}' });
  });

  it('follows properties and indexes into structured data', () => {
    expect(evaluate('${{ steps.build.data.files[1] }}')).toBe('b.js');
    expect(evaluate("${{ steps.build.data.meta['odd key'] }}")).toBe(1);
    expect(evaluate("${{ steps['build'].data['meta'].version }}")).toBe('2.0');
    expect(evaluate('${{ inputs.nested.deep.value }}')).toBe(7);
    expect(evaluate("${{ inputs.list['0'] }}")).toBe('Alpha');
    // An index is a number rounded down, as in GitHub Actions.
    expect(evaluate('${{ steps.build.data.files[1.9] }}')).toBe('b.js');
  });

  it('reads property names without regard to case', () => {
    expect(evaluate('${{ steps.BUILD.Status }}')).toBe('success');
    expect(evaluate('${{ INPUTS.TAG }}')).toBe('v1.2.0');
    expect(evaluate(`\${{ fromJSON('{"a": 1}').A }}`)).toBe(1);
  });

  it('filters arrays and objects with "*"', () => {
    expect(evaluate('${{ steps.build.data.* }}')).toEqual([['a.js', 'b.js'], { 'odd key': 1, version: '2.0' }]);
    expect(evaluate(`\${{ fromJSON('[{"n": 1}, {"n": 2}, {}]').*.n }}`)).toEqual([1, 2]);
    expect(evaluate(`\${{ contains(fromJSON('[{"n": 1}, {"n": 2}]').*.n, 2) }}`)).toBe(true);
  });

  it('yields null for anything missing instead of failing', () => {
    for (const text of [
      '${{ inputs.nope.deeper.still }}',
      '${{ steps.never.status }}',
      '${{ steps.lint.data.x }}',
      '${{ steps.build.data.files[5] }}',
      '${{ steps.build.data.files[-1] }}',
      '${{ steps.build.data.files.length }}',
      '${{ inputs.tag.length }}',
      '${{ inputs.count[0] }}',
      '${{ inputs.constructor }}',
      '${{ inputs.__proto__ }}',
      '${{ steps.toString }}',
    ]) {
      expect(evaluate(text), text).toBeNull();
    }
  });

  it('refuses a very long property chain when parsing, without recursion trouble', () => {
    expect(() => parseTemplate(`\${{ inputs${'.a'.repeat(5_000)} }}`)).toThrow(/Exceeded max expression depth 50/);
  });

  it('refuses, as an expression error, a chain of comparisons too long to evaluate', () => {
    expect(() => evaluate(`\${{ ${Array(6_000).fill('1').join('==')} }}`)).toThrow(/nested too deeply/);
  });
});

describe('operators', () => {
  it('applies precedence: "!" binds tighter than comparisons', () => {
    // (!inputs.dry) == true, not !(inputs.dry == true)
    expect(evaluate('${{ !inputs.dry == true }}')).toBe(true);
    expect(evaluate("${{ !inputs.tag == 'x' }}")).toBe(false);
  });

  it('applies precedence: "&&" binds tighter than "||"', () => {
    expect(evaluate('${{ true || false && false }}')).toBe(true);
    expect(evaluate("${{ 'a' || 'b' && 'c' }}")).toBe('a');
    expect(evaluate('${{ (true || false) && false }}')).toBe(false);
  });

  it('applies precedence: relational operators bind tighter than equality', () => {
    expect(evaluate('${{ 1 < 2 == 3 < 4 }}')).toBe(true);
    expect(evaluate('${{ 2 < 1 == false }}')).toBe(true);
    expect(evaluate('${{ inputs.count > 2 && inputs.count <= 3 }}')).toBe(true);
  });

  it('returns operand values from "&&" and "||" and short-circuits', () => {
    expect(evaluate("${{ inputs.missing || 'fallback' }}")).toBe('fallback');
    expect(evaluate("${{ inputs.tag && 'yes' }}")).toBe('yes');
    expect(evaluate("${{ '' && fromJSON('not json') }}")).toBe('');
    expect(evaluate("${{ 1 || fromJSON('not json') }}")).toBe(1);
    expect(evaluate('${{ 0 || null }}')).toBeNull();
    expect(evaluate('${{ inputs.count && inputs.list }}')).toEqual(['Alpha', 'beta']);
  });

  it('negates with GitHub Actions truthiness', () => {
    expect(evaluate("${{ !'' }}")).toBe(true);
    expect(evaluate('${{ !0 }}')).toBe(true);
    expect(evaluate('${{ !inputs.list }}')).toBe(false);
    expect(evaluate('${{ !!inputs.tag }}')).toBe(true);
  });

  it('compares strings without regard to case', () => {
    expect(evaluate("${{ steps.build.status == 'SUCCESS' }}")).toBe(true);
    expect(evaluate("${{ 'abc' != 'ABC' }}")).toBe(false);
    expect(evaluate("${{ 'apple' < 'BANANA' }}")).toBe(true);
    expect(evaluate("${{ 'B' >= 'a' }}")).toBe(true);
  });

  it('coerces different types to numbers, like GitHub Actions', () => {
    expect(evaluate("${{ '3' == inputs.count }}")).toBe(true);
    expect(evaluate("${{ ' 0x10 ' == 16 }}")).toBe(true);
    expect(evaluate("${{ '' == 0 }}")).toBe(true);
    expect(evaluate('${{ null == 0 }}')).toBe(true);
    expect(evaluate('${{ null == false }}')).toBe(true);
    expect(evaluate("${{ true == '1' }}")).toBe(true);
    expect(evaluate("${{ 'abc' == 0 }}")).toBe(false);
    expect(evaluate("${{ 'abc' != 0 }}")).toBe(true);
    expect(evaluate("${{ '10' > 9 }}")).toBe(true);
    expect(evaluate("${{ '10' > '9' }}")).toBe(false);
    expect(evaluate('${{ null == null }}')).toBe(true);
  });

  it('compares arrays and objects by identity only', () => {
    expect(evaluate('${{ inputs.list == inputs.list }}')).toBe(true);
    expect(evaluate("${{ fromJSON('[1]') == fromJSON('[1]') }}")).toBe(false);
    expect(evaluate('${{ inputs.list == 0 }}')).toBe(false);
    expect(evaluate('${{ inputs.list < inputs.list }}')).toBe(false);
  });
});

describe('functions', () => {
  const failedRun = makeContext({ run: { failed: true, cancelled: false } });
  const cancelledRun = makeContext({ run: { failed: false, cancelled: true } });

  it('status functions read the run', () => {
    expect([evaluate('${{ success() }}'), evaluate('${{ failure() }}'), evaluate('${{ cancelled() }}'), evaluate('${{ always() }}')]).toEqual([true, false, false, true]);
    expect([evaluate('${{ success() }}', failedRun), evaluate('${{ failure() }}', failedRun), evaluate('${{ always() }}', failedRun)]).toEqual([false, true, true]);
    expect([evaluate('${{ success() }}', cancelledRun), evaluate('${{ cancelled() }}', cancelledRun)]).toEqual([false, true]);
  });

  it('contains() searches strings without case and arrays by loose equality', () => {
    expect(evaluate("${{ contains(steps.build.output, 'built ok') }}")).toBe(true);
    expect(evaluate("${{ contains('abc', 'd') }}")).toBe(false);
    expect(evaluate("${{ contains(inputs.list, 'ALPHA') }}")).toBe(true);
    expect(evaluate("${{ contains(inputs.list, 'alp') }}")).toBe(false);
    expect(evaluate("${{ contains(fromJSON('[1, 2]'), '2') }}")).toBe(true);
    expect(evaluate('${{ contains(inputs.count, 3) }}')).toBe(true);
  });

  it('startsWith() and endsWith() ignore case', () => {
    expect(evaluate("${{ startsWith(inputs.tag, 'V1.') }}")).toBe(true);
    expect(evaluate("${{ startsWith(inputs.tag, '1') }}")).toBe(false);
    expect(evaluate("${{ endsWith(env.MODE, 'TION') }}")).toBe(true);
    expect(evaluate("${{ endsWith(env.MODE, 'prod') }}")).toBe(false);
  });

  it('format() fills placeholders and unescapes braces', () => {
    expect(evaluate("${{ format('{0}-{1}-{0}', inputs.tag, inputs.count) }}")).toBe('v1.2.0-3-v1.2.0');
    expect(evaluate("${{ format('{{literal}} {0}', null) }}")).toBe('{literal} ');
    expect(evaluate("${{ format('{0}', inputs.list) }}")).toBe('Array');
    expect(evaluate("${{ format('plain') }}")).toBe('plain');
  });

  it('format() with a computed format string checks it when evaluated', () => {
    const withFormat = makeContext({ inputs: { fmt: '{0} and {1}', bad: 'x {y}' } });
    expect(evaluate("${{ format(inputs.fmt, 'a', 'b') }}", withFormat)).toBe('a and b');
    expect(() => evaluate("${{ format(inputs.fmt, 'a') }}", withFormat)).toThrow(/references more arguments than were supplied/);
    expect(() => evaluate('${{ format(inputs.bad) }}', withFormat)).toThrow(/format string is invalid/);
  });

  it('join() writes array elements with a separator', () => {
    expect(evaluate('${{ join(inputs.list) }}')).toBe('Alpha,beta');
    expect(evaluate("${{ join(steps.build.data.files, ' + ') }}")).toBe('a.js + b.js');
  });

  it('case() picks the value of the first true condition', () => {
    expect(evaluate("${{ case(inputs.dry, 'dry', inputs.count > 2, 'many', 'few') }}")).toBe('many');
    expect(evaluate("${{ case(inputs.dry, 'dry', 'few') }}")).toBe('few');
  });

  it('toJSON() writes indented JSON and fromJSON() reads it back', () => {
    expect(evaluate('${{ toJSON(steps.build.data.files) }}')).toBe('[\n  "a.js",\n  "b.js"\n]');
    expect(evaluate('${{ toJSON(null) }}')).toBe('null');
    expect(evaluate("${{ toJSON('x') }}")).toBe('"x"');
    expect(evaluate('${{ fromJSON(toJSON(inputs.nested)) }}')).toEqual(context.inputs.nested);
    expect(evaluate('${{ fromJSON(\'{"a": [true, 2]}\').a[1] }}')).toBe(2);
    expect(evaluate("${{ fromJSON('3') == 3 }}")).toBe(true);
  });

  it('fromJSON() of invalid JSON fails with the offset of the call', () => {
    const error = evaluationError('abc ${{ 1 && fromJSON(inputs.tag) }}');
    expect(error.offset).toBe(13);
    expect(error.message).toMatch(/^fromJSON\(\): Error parsing JSON/);
  });

  it('a function failing inside an index fails as an expression error at the call, not a crash', () => {
    const error = evaluationError('x ${{ inputs.list[inputs.list[fromJSON(inputs.tag)]] }}');
    expect(error.offset).toBe(30);
    expect(error.message).toMatch(/^fromJSON\(\): Error parsing JSON/);
    expect(evaluationError(`\${{ inputs.list[${Array(6_000).fill('1').join('==')}] }}`).message).toMatch(/nested too deeply/);
  });

  it('toJSON() of a value too deep to write fails as an expression error, not a crash', () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const using = makeContext({ steps: { big: { status: 'success', output: deep, data: null } } });
    expect(() => evaluate('${{ toJSON(fromJSON(steps.big.output)) }}', using)).toThrow(ExpressionError);
  });
});

describe("rho's functions", () => {
  const output = makeContext({ steps: { ls: { status: 'success', output: '  a.txt\nb.txt\n', data: null } } });

  it('rho_trim() removes leading and trailing whitespace', () => {
    expect(evaluate('${{ rho_trim(steps.ls.output) }}', output)).toBe('a.txt\nb.txt');
    expect(evaluate('${{ rho_trim(inputs.count) }}')).toBe('3');
    expect(evaluate('[${{ rho_trim(null) }}]')).toBe('[]');
  });

  it('rho_split() splits on an exact separator into an array', () => {
    // A quoted string has no escapes: the newline is the character itself (YAML's "\n").
    expect(evaluate("${{ rho_split(rho_trim(steps.ls.output), '\n') }}", output)).toEqual(['a.txt', 'b.txt']);
    expect(evaluate("${{ rho_split('a,b,,c', ',') }}")).toEqual(['a', 'b', '', 'c']);
    expect(evaluate("${{ rho_split('aXb', 'x') }}")).toEqual(['aXb']);
    expect(evaluate("${{ join(rho_split(inputs.tag, '.'), '-') }}")).toBe('v1-2-0');
  });

  it('rho_replace() replaces every exact occurrence', () => {
    expect(evaluate("${{ rho_replace(inputs.tag, '.', '_') }}")).toBe('v1_2_0');
    expect(evaluate("${{ rho_replace('a$b', '$', '$&$$') }}")).toBe('a$&$$b');
    expect(evaluate("${{ rho_replace('Aa', 'a', 'x') }}")).toBe('Ax');
  });

  it('converts case word by word: camel humps, acronyms, digits and separators split words', () => {
    const words = 'HTTPServer fooBar_baz-qux2 ünïcode';
    expect(evaluate(`\${{ rho_snakecase('${words}') }}`)).toBe('http_server_foo_bar_baz_qux2_ünïcode');
    expect(evaluate(`\${{ rho_kebabcase('${words}') }}`)).toBe('http-server-foo-bar-baz-qux2-ünïcode');
    expect(evaluate(`\${{ rho_camelcase('${words}') }}`)).toBe('httpServerFooBarBazQux2Ünïcode');
    expect(evaluate(`\${{ rho_pascalcase('${words}') }}`)).toBe('HttpServerFooBarBazQux2Ünïcode');
    expect(evaluate("${{ rho_uppercase('biome_cli') }} ${{ rho_lowercase('Biome CLI') }}")).toBe('BIOME_CLI biome cli');
    expect(evaluate('${{ rho_snakecase(inputs.tag) }}')).toBe('v1_2_0');
    expect(evaluate('[${{ rho_kebabcase(null) }}]')).toBe('[]');
  });

  it('refuses an empty separator or search text', () => {
    expect(() => evaluate("${{ rho_split('abc', '') }}")).toThrow(/rho_split\(\): needs a non-empty separator/);
    expect(() => evaluate("${{ rho_replace('abc', '', 'x') }}")).toThrow(/needs a non-empty search text/);
  });
});

describe('isTruthy', () => {
  it('follows GitHub Actions truthiness', () => {
    expect([false, 0, -0, Number.NaN, '', null, undefined].map(isTruthy)).toEqual(Array(7).fill(false));
    expect([true, 1, -1, 'false', '0', [], {}].map(isTruthy)).toEqual(Array(7).fill(true));
  });
});

describe('walkTemplates and evaluateDeep', () => {
  const value = {
    command: 'npm',
    args: ['publish', '--tag', '${{ inputs.tag }}'],
    env: { TOKEN: '${{ secrets.TOKEN }}', COUNT: '${{ inputs.count }}', LABEL: 'n=${{ inputs.count }}' },
    retries: 2,
    quiet: true,
    nothing: null,
  };

  it('visits every string with its path', () => {
    const visited: [string, (string | number)[]][] = [];
    walkTemplates(value, (text, path) => visited.push([text, path]));
    expect(visited).toEqual([
      ['npm', ['command']],
      ['publish', ['args', 0]],
      ['--tag', ['args', 1]],
      ['${{ inputs.tag }}', ['args', 2]],
      ['${{ secrets.TOKEN }}', ['env', 'TOKEN']],
      ['${{ inputs.count }}', ['env', 'COUNT']],
      ['n=${{ inputs.count }}', ['env', 'LABEL']],
    ]);
  });

  it('returns an evaluated copy and leaves the original alone', () => {
    const before = structuredClone(value);
    expect(evaluateDeep(value, context)).toEqual({
      command: 'npm',
      args: ['publish', '--tag', 'v1.2.0'],
      env: { TOKEN: 's3cret-value', COUNT: 3, LABEL: 'n=3' },
      retries: 2,
      quiet: true,
      nothing: null,
    });
    expect(value).toEqual(before);
  });

  it('reads further contexts the context carries', () => {
    const withMatrix = makeContext({ extra: { matrix: { os: 'linux', node: [20, 22] } } });
    expect(evaluateDeep({ label: '${{ matrix.os }}-${{ join(matrix.node) }}', first: '${{ matrix.node[0] }}' }, withMatrix)).toEqual({ label: 'linux-20,22', first: 20 });
    expect(() => evaluateDeep({ label: '${{ matrix.os }}' }, context)).toThrow(/Unrecognized named-value: 'matrix'/);
  });

  it('names the failing string in the error path', () => {
    let caught: unknown;
    try {
      evaluateDeep({ with: { items: ['ok', 'x ${{ fromJSON(inputs.tag) }}'] } }, context);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ExpressionError);
    expect((caught as ExpressionError).path).toEqual(['with', 'items', 1]);
    expect((caught as ExpressionError).offset).toBe(6);
  });
});

import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../src/workflow/compile.js';
import { parseInputs } from '../../src/workflow/inputs.js';
import { builtinRegistry } from '../../src/workflow/builtin-registry.js';
import { checkScriptedAnswerIds } from '../../src/workflow/question-ids.js';
import type { InputDeclaration } from '../../src/workflow/schema.js';
import { WorkflowSource } from '../../src/workflow/source.js';

const tools = builtinRegistry();

function compile(text: string) {
  const parsed = WorkflowSource.parse('w.yml', text);
  if (!parsed.source) return { problems: parsed.problems.map((p) => `${p.line}:${p.col}: ${p.message}`) };
  const { workflow, problems } = compileWorkflow(parsed.source, tools);
  return { workflow, problems: problems.map((p) => `${p.line}:${p.col}: ${p.message}`) };
}

const withInputs = (inputs: string, value = 'hi') => `version: 1\nname: t\ninputs:\n${inputs}\nsteps:\n  - { id: a, tool: echo, with: { value: "${value}" } }\n`;

describe('input declarations', () => {
  it('need a default of their declared type', () => {
    expect(compile(withInputs('  n: { type: number, default: "abc" }')).problems).toEqual(['4:31: inputs.n.default: the default "abc" is not a number (write it without quotes)']);
    expect(compile(withInputs('  b: { type: boolean, default: "true" }')).problems).toEqual([
      '4:32: inputs.b.default: the default "true" is not a boolean (write it without quotes)',
    ]);
    expect(compile(withInputs('  s: { type: string, default: 3 }')).problems).toEqual(['4:31: inputs.s.default: the default 3 is not a string']);
    expect(compile(withInputs('  n: { type: number, default: 3 }\n  b: { type: boolean, default: false }')).problems).toEqual([]);
  });

  it('declare a choice with its options, and a default among them', () => {
    expect(compile(withInputs('  c: { type: choice }')).problems).toEqual(['4:14: inputs.c.type: a choice input lists its values under options:']);
    expect(compile(withInputs('  c: { type: choice, options: [a, b], default: z }')).problems).toEqual([
      '4:48: inputs.c.default: the default "z" is not one of the options (a, b)',
    ]);
    expect(compile(withInputs('  c: { type: string, options: [a] }')).problems).toEqual(['4:31: inputs.c.options: options: belongs to a choice input (this one is a string)']);
    expect(compile(withInputs('  c: { type: choice, options: [a, b], default: b }')).problems).toEqual([]);
  });

  it('refuse a required input with a default, which could never apply', () => {
    expect(compile(withInputs('  t: { required: true, default: x }')).problems).toEqual(['4:33: inputs.t.default: a required input has no default (drop one of them)']);
  });

  it('keep the other inputs declared when one declaration is wrong', () => {
    const { problems } = compile(withInputs('  bad: { typ: string }\n  good: { type: string }', '${{ inputs.good }} ${{ inputs.bad }}'));
    expect(problems).toEqual(['4:10: unknown key "typ"; did you mean "type"?']);
  });

  it('refuse names JavaScript objects reserve', () => {
    expect(compile(withInputs('  constructor: { type: string }')).problems).toEqual([
      '4:3: inputs.constructor: this input name cannot be used: it is a name JavaScript objects reserve (__proto__, constructor, prototype)',
    ]);
  });
});

describe('input values', () => {
  const declared: Record<string, InputDeclaration> = {
    who: { type: 'string', default: 'world' },
    tag: { type: 'string', required: true },
    note: { type: 'string' },
    color: { type: 'choice', options: ['red', 'blue'], default: 'red' },
    n: { type: 'number' },
  };

  it('take defaults, require what is required, and leave an optional input without default out', () => {
    expect(parseInputs(['tag=v1'], declared)).toEqual({ who: 'world', tag: 'v1', color: 'red' });
    expect(() => parseInputs([], declared)).toThrow('input tag is required: pass --input tag=VALUE');
  });

  it('check a choice against its options and a number as a number', () => {
    expect(parseInputs(['tag=v1', 'color=blue', 'n=2.5'], declared)).toMatchObject({ color: 'blue', n: 2.5 });
    expect(() => parseInputs(['tag=v1', 'color=green'], declared)).toThrow('input color is one of red, blue, not "green"');
    expect(() => parseInputs(['tag=v1', 'n=abc'], declared)).toThrow('input n is a number, not "abc"');
  });

  it('refuse a name the workflow does not declare, inherited object members included', () => {
    for (const name of ['nope', 'constructor', '__proto__', 'toString']) {
      expect(() => parseInputs(['tag=v1', `${name}=x`], declared), name).toThrow(`--input ${name}: the workflow declares no such input`);
    }
  });
});

describe('answers given ahead of time', () => {
  const asking = `version: 1\nname: t\nsteps:\n  - id: q\n    tool: questionnaire\n    with:\n      questions:\n        - { id: go, question: "Go?", type: confirm }\n        - { question: "Why?" }\n`;

  it('must name a question the workflow asks (unnamed questions are q1, q2, ...)', () => {
    const { workflow } = compile(asking);
    expect(() =>
      checkScriptedAnswerIds(workflow!, [
        { id: 'go', origin: '--answer' },
        { id: 'q2', origin: '--answers a.yml' },
      ]),
    ).not.toThrow();
    expect(() => checkScriptedAnswerIds(workflow!, [{ id: 'og', origin: '--answer' }])).toThrow('--answer: no question of the workflow has the id "og"; did you mean "go"?');
    expect(() => checkScriptedAnswerIds(workflow!, [{ id: 'q.go', origin: '--answer' }])).not.toThrow();
    expect(() => checkScriptedAnswerIds(workflow!, [{ id: 'q.og', origin: '--answer' }])).toThrow('--answer: no question of the workflow has the id "q.og"; did you mean "q.go"?');
    const { workflow: silent } = compile('version: 1\nname: t\nsteps:\n  - { id: a, tool: echo, with: { value: 1 } }\n');
    expect(() => checkScriptedAnswerIds(silent!, [{ id: 'go', origin: '--answers a.yml' }])).toThrow(
      '--answers a.yml: no question of the workflow has the id "go"; the workflow asks no questions',
    );
  });

  it('are not checked when the questions are only known at run time', () => {
    const { workflow } = compile(`version: 1\nname: t\nsteps:\n  - id: q\n    tool: questionnaire\n    with: { questions: "\${{ fromJSON('[]') }}" }\n`);
    expect(() => checkScriptedAnswerIds(workflow!, [{ id: 'anything', origin: '--answer' }])).not.toThrow();
  });
});

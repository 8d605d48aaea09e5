import { afterAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

async function workspace(files: Record<string, string>): Promise<string> {
  const dir = await directories.make();
  await writeFiles(dir, files);
  return dir;
}

const aliasBomb = [
  'version: 1',
  'name: bomb',
  'a: &a ["x","x","x","x","x","x","x","x","x"]',
  ...['b', 'c', 'd', 'e'].map((name, index) => `${name}: &${name} [${Array(9).fill(`*${'abcd'[index]}`).join(',')}]`),
  'steps:',
  '  - { id: s, tool: echo, with: { value: *e } }',
  '',
].join('\n');

const asking = `version: 1
name: ask
inputs:
  color: { type: choice, options: [red, blue], default: red }
steps:
  - id: q
    tool: questionnaire
    with:
      questions:
        - { id: go, question: "Go?", type: confirm }
  - id: show
    tool: echo
    with: { value: "\${{ inputs.color }} \${{ steps.q.data.answers.go }}" }
`;

describe.concurrent('bad input fails cleanly, before anything runs', () => {
  it('an alias bomb is a located validation problem (exit 2), for run and validate alike', async () => {
    const dir = await workspace({ 'bomb.yml': aliasBomb });
    for (const command of ['run', 'validate', 'plan']) {
      const result = await runCli([command, 'bomb.yml'], { cwd: dir });
      expect(result.exitCode, command).toBe(2);
      expect(result.stderr, command).toBe('bomb.yml:4:8: its aliases expand to more than 100 references; rho refuses a file that could expand without bound');
    }
  });

  it('a __proto__ key in with: or a question id __proto__ is refused, never dropped', async () => {
    const dir = await workspace({
      'with.yml': 'version: 1\nname: p\nsteps:\n  - id: a\n    tool: http_request\n    with:\n      url: http://127.0.0.1:1/\n      headers: { __proto__: { x: "1" } }\n',
      'question.yml': 'version: 1\nname: q\nsteps:\n  - id: a\n    tool: questionnaire\n    with:\n      questions:\n        - { id: __proto__, question: "Go?" }\n',
    });
    const withKey = await runCli(['run', 'with.yml'], { cwd: dir });
    expect([withKey.exitCode, withKey.stderr]).toEqual([2, `with.yml:8:18: the key "__proto__" is refused: JavaScript reads it as an object's prototype, not as data; rename it`]);
    const question = await runCli(['validate', 'question.yml'], { cwd: dir });
    expect(question.exitCode).toBe(2);
    expect(question.stderr).toContain('questions.0.id: this id cannot be used: it is a name JavaScript objects reserve (__proto__, constructor, prototype)');
    const invoked = await runCli(['invoke', 'echo', '--args', '{"value": {"a": {"__proto__": 1}}}'], { cwd: dir });
    expect([invoked.exitCode, invoked.stderr]).toEqual([
      2,
      `rho: echo failure: echo: invalid arguments: value.a.__proto__: the key "__proto__" is refused (JavaScript reads it as the object's prototype, not as data)`,
    ]);
  });

  it('answers, inputs and labels with ids no workflow has are usage errors (exit 2)', async () => {
    const dir = await workspace({ 'ask.yml': asking, 'answers.yml': 'og: true\n', 'proto.yml': '__proto__: true\n' });
    const cases: [string[], string][] = [
      [['--answer', 'og=true'], 'rho: --answer: no question of the workflow has the id "og"; did you mean "go"?'],
      [['--answers', 'answers.yml'], 'rho: --answers answers.yml: no question of the workflow has the id "og"; did you mean "go"?'],
      [['--answer', '__proto__=true'], 'rho: --answer: "__proto__" is not a question id: it is a name JavaScript objects reserve (__proto__, constructor, prototype)'],
      [['--answers', 'proto.yml'], 'rho: --answers proto.yml: "__proto__" is not a question id: it is a name JavaScript objects reserve (__proto__, constructor, prototype)'],
      [['--answer', 'go=true', '-i', 'color=green'], 'rho: input color is one of red, blue, not "green"'],
      [['--answer', 'go=true', '-i', 'constructor=x'], 'rho: --input constructor: the workflow declares no such input (inputs: color)'],
      [['--answer', 'go=true', '--label', '__proto__=x'], 'rho: host label key "__proto__" is invalid: a label key is a letter followed by up to 63 of A-Z a-z 0-9 _ . -'],
    ];
    const results = await Promise.all(cases.map(([flags]) => runCli(['run', 'ask.yml', ...flags], { cwd: dir })));
    results.forEach((result, index) => {
      const [flags, message] = cases[index]!;
      expect([result.exitCode, result.stderr], flags.join(' ')).toEqual([2, message]);
      expect(result.stdout, flags.join(' ')).not.toContain('▶');
    });
    const good = await runCli(['run', 'ask.yml', '--answer', 'go=true', '-i', 'color=blue'], { cwd: dir });
    expect(good.exitCode).toBe(0);
    expect(good.stdout).toContain('[show] blue true');
  });

  it('a default of the wrong type is a validation problem', async () => {
    const dir = await workspace({ 'typed.yml': 'version: 1\nname: t\ninputs:\n  n: { type: number, default: "abc" }\nsteps:\n  - { id: a, tool: echo, with: { value: 1 } }\n' });
    const result = await runCli(['run', 'typed.yml'], { cwd: dir });
    expect([result.exitCode, result.stderr]).toEqual([2, 'typed.yml:4:31: inputs.n.default: the default "abc" is not a number (write it without quotes)']);
  });
});

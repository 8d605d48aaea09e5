import { describe, expect, it } from 'vitest';
import { answersProblems } from '../../../src/host/host-input/problems.js';
import { answerElicitation } from '../../../src/tools/mcp/client-requests.js';
import { elicitedContent, parseElicitationForm } from '../../../src/tools/mcp/elicitation-form.js';
import { ToolError } from '../../../src/host/errors.js';
import { userResponse, type HostInput } from '../../../src/host/host-input.js';

const form = {
  message: 'Tell us about you',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Name', minLength: 2 },
      email: { type: 'string', format: 'email' },
      token: { type: 'string', writeOnly: true },
      age: { type: 'integer', minimum: 1, maximum: 150, default: 30 },
      ratio: { type: 'number' },
      agree: { type: 'boolean', default: false },
      color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
      hero: {
        type: 'string',
        oneOf: [
          { const: 'h1', title: 'Superman' },
          { const: 'h2', title: 'Batman' },
        ],
      },
      tools: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['saw', 'drill', 'hammer'] } },
    },
    required: ['name', 'email'],
  },
};

describe('an elicitation form as questions', () => {
  const parsed = parseElicitationForm(form);
  const byId = Object.fromEntries(parsed.input.questions.map((question) => [question.id, question]));

  it('maps each field to a question of the matching type, with its default and its bounds', () => {
    expect(byId.name).toMatchObject({ type: 'text', required: true, min_length: 2, question: 'Tell us about you\nName' });
    expect(byId.email).toMatchObject({ type: 'text', format: 'email', required: true });
    expect(byId.token).toMatchObject({ type: 'text', secret: true, required: false });
    expect(byId.age).toMatchObject({ type: 'text', format: 'integer', minimum: 1, maximum: 150, default: '30' });
    expect(byId.agree).toMatchObject({ type: 'confirm', default: false });
    expect(byId.color).toMatchObject({ type: 'choice', choices: ['red', 'blue'], default: 'red' });
    expect(byId.hero).toMatchObject({ type: 'choice', choices: ['h1', 'h2'], question: 'hero (h1 = Superman, h2 = Batman)' });
    expect(byId.tools).toMatchObject({ type: 'multi', min_items: 1, max_items: 2 });
  });

  it('checks answers with the form’s formats and bounds', () => {
    const problems = answersProblems(parsed.input.questions, { name: 'A', email: 'not-mail', age: '151', ratio: 'x', tools: ['saw', 'drill', 'hammer'] });
    expect(Object.fromEntries(problems.map((problem) => [problem.path[0], problem.message]))).toEqual({
      name: 'at least 2 characters',
      email: 'an email address, such as ada@example.org',
      age: 'at most 150',
      ratio: 'a number, such as 3.14',
      tools: 'select at most 2',
    });
  });

  it('sends answers back typed as the form asks', () => {
    const answers = { name: 'Ada', email: 'ada@example.org', age: '36', ratio: '0.5', agree: true, tools: ['saw'] };
    expect(elicitedContent(parsed, answers)).toEqual({ name: 'Ada', email: 'ada@example.org', age: 36, ratio: 0.5, agree: true, color: 'red', tools: ['saw'] });
  });

  it('fills each field left unanswered with the server’s default, typed as the schema says (SEP-1034)', () => {
    expect(elicitedContent(parsed, { name: 'Ada', email: 'ada@example.org', color: 'blue' })).toEqual({
      name: 'Ada',
      email: 'ada@example.org',
      age: 30,
      agree: false,
      color: 'blue',
    });
  });

  it('asks a required field that has a default as an optional question, so that an unattended run takes the default', () => {
    const required = parseElicitationForm({
      message: 'x',
      requestedSchema: { type: 'object', properties: { level: { type: 'integer', default: 3 }, name: { type: 'string' } }, required: ['level', 'name'] },
    });
    expect(required.input.questions.map((question) => [question.id, question.required])).toEqual([
      ['level', false],
      ['name', true],
    ]);
  });

  it('refuses a form rho cannot show (a nested object, a property name that is no question id)', () => {
    expect(() => parseElicitationForm({ message: 'x', requestedSchema: { type: 'object', properties: { a: { type: 'object' } } } })).toThrow();
    expect(() => parseElicitationForm({ message: 'x', requestedSchema: { type: 'object', properties: { 'a b': { type: 'string' } } } })).toThrow(/questions\.0\.id/);
  });
});

describe('answering an elicitation', () => {
  const notices: string[] = [];
  const context = (ask: (input: HostInput) => Promise<ReturnType<typeof userResponse>>) => ({
    server: 'ev',
    roots: [],
    activeCall: () => ({ stepId: 'ask', ask, notice: (line: string) => notices.push(line) }),
  });

  it('accepts with the typed answers', async () => {
    const result = await answerElicitation(
      form,
      context(async (input) => userResponse(input, { name: 'Ada', email: 'ada@example.org', age: '7' })),
    );
    expect(result).toEqual({ action: 'accept', content: { name: 'Ada', email: 'ada@example.org', age: 7, agree: false, color: 'red' } });
  });

  it('accepts a form nobody answered with the server’s defaults when every field has one', async () => {
    const defaults = {
      message: 'Accept the defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', default: 'John Doe' },
          score: { type: 'number', default: 95.5 },
          status: { type: 'string', enum: ['active', 'inactive'], default: 'active' },
          verified: { type: 'boolean', default: true },
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: ['b'] },
        },
      },
    };
    const result = await answerElicitation(
      defaults,
      context(async (input) => userResponse(input, {})),
    );
    expect(result).toEqual({ action: 'accept', content: { name: 'John Doe', score: 95.5, status: 'active', verified: true, tags: ['b'] } });
  });

  it('declines a form nobody answered when no field has a default, naming the flag', async () => {
    notices.length = 0;
    const bare = { message: 'x', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
    expect(
      await answerElicitation(
        bare,
        context(async (input) => userResponse(input, {})),
      ),
    ).toEqual({ action: 'decline' });
    expect(notices).toEqual(['MCP server ev asked for input: declined: no field was answered; answer with --answer ask.name=VALUE (or --answers FILE)']);
  });

  it('declines when nobody can answer, and says why on the step', async () => {
    notices.length = 0;
    const result = await answerElicitation(
      form,
      context(async () => {
        throw new ToolError('unsupported', 'nobody can be asked here; run again with --answer ask.name=VALUE');
      }),
    );
    expect(result).toEqual({ action: 'decline' });
    expect(notices).toEqual(['MCP server ev asked for input: declined: nobody can be asked here; run again with --answer ask.name=VALUE']);
  });

  it('cancels when the person closes the form', async () => {
    const result = await answerElicitation(
      form,
      context(async () => {
        throw new ToolError('cancelled', 'closed without an answer');
      }),
    );
    expect(result).toEqual({ action: 'cancel' });
  });

  it('declines when no call can be told apart to ask for (none or several running)', async () => {
    expect(await answerElicitation(form, { server: 'ev', roots: [], activeCall: () => undefined })).toEqual({ action: 'decline' });
  });
});

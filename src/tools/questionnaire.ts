import { z } from 'zod';
import { createHostInput, questionnaireSchema, type Answer, type HostInput, type HostInputResponse } from '../host/host-input.js';
import { defineBuiltinTool, type ToolOutput } from '../host/tool.js';

function displayAnswer(value: Answer): string {
  if (Array.isArray(value)) return value.join(', ');
  return String(value);
}

/** One line per answer; secret answers never appear in the text, only in the step's data. */
function describeAnswers(input: HostInput, response: HostInputResponse): string {
  const lines = input.questions
    .filter((question) => Object.hasOwn(response.answers, question.id))
    .map((question) => `${question.id}: ${question.secret ? '***' : displayAnswer(response.answers[question.id]!)}`);
  if (response.source === 'timeout_fallback') lines.push(`(no answer before the timeout: ${input.timeoutFallback?.reason})`);
  return lines.join('\n');
}

function questionnaireOutput(input: HostInput, response: HostInputResponse): ToolOutput {
  return {
    text: describeAnswers(input, response),
    data: { answers: response.answers, source: response.source },
    metadata: { source: response.source, questions: input.questions.map((question) => question.id) },
  };
}

/** The step data the tool returns (`steps.<id>.data`). */
const questionnaireData = () =>
  z.object({
    answers: z.record(z.string(), z.union([z.string(), z.boolean(), z.array(z.string())])),
    source: z.enum(['user', 'timeout_fallback']),
  });

export const questionnaireTool = defineBuiltinTool({
  name: 'questionnaire',
  description:
    'Ask the person running the workflow questions (text, choice, multi, confirm). on_timeout gives safe, reversible ' +
    'answers applied only when --question-timeout expires before anyone starts answering. Not usable in async steps.',
  origin: 'built-in',
  data: questionnaireData,
  classes: [],
  executionPolicy: 'resource-aware',
  mode: 'sync',
  schema: questionnaireSchema,
  async prepare(args) {
    const input = createHostInput(args);
    return {
      requests: [],
      resources: [],
      summary: `ask ${input.questions.map((question) => question.id).join(', ')}`,
      async execute(ctx) {
        return questionnaireOutput(input, await ctx.ask(input));
      },
    };
  },
});

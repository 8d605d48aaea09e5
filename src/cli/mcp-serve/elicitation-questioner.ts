import type { ElicitRequestFormParams, PrimitiveSchemaDefinition } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../../host/errors.js';
import { userResponse, type Answer, type HostInputRequest, type HostInputResponse, type Question, type Questioner } from '../../host/host-input.js';
import type { Elicit } from './elicitation-approver.js';

/** A question as a field of MCP's restricted form schema. */
function field(question: Question): PrimitiveSchemaDefinition {
  const title = question.question;
  const initial = question.default;
  switch (question.type) {
    case 'confirm':
      return { type: 'boolean', title, ...(typeof initial === 'boolean' && { default: initial }) };
    case 'choice':
      return { type: 'string', title, enum: [...question.choices!], ...(typeof initial === 'string' && { default: initial }) };
    case 'multi':
      return {
        type: 'array',
        title,
        items: { type: 'string', enum: [...question.choices!] },
        ...(question.min_items !== undefined && { minItems: question.min_items }),
        ...(question.max_items !== undefined && { maxItems: question.max_items }),
        ...(Array.isArray(initial) && { default: [...initial] }),
      };
    case 'text': {
      if (question.format === 'number' || question.format === 'integer') {
        const number = typeof initial === 'string' ? Number(initial) : undefined;
        return {
          type: question.format,
          title,
          ...(question.minimum !== undefined && { minimum: question.minimum }),
          ...(question.maximum !== undefined && { maximum: question.maximum }),
          ...(number !== undefined && Number.isFinite(number) && { default: number }),
        };
      }
      return {
        type: 'string',
        title,
        ...(question.format !== undefined && { format: question.format }),
        ...(question.min_length !== undefined && { minLength: question.min_length }),
        ...(question.max_length !== undefined && { maxLength: question.max_length }),
        ...(typeof initial === 'string' && { default: initial }),
      };
    }
  }
}

/** The form's values as answers: numbers of number questions as the text a person would have typed. */
function answersOf(content: Readonly<Record<string, unknown>>): Record<string, Answer> {
  return Object.fromEntries(Object.entries(content).map(([id, value]) => [id, typeof value === 'number' ? String(value) : (value as Answer)]));
}

/**
 * Questionnaire steps answered through the MCP client: one form elicitation per questionnaire,
 * its answers checked as a person's would be. MCP forbids asking for secrets in a form, so a
 * questionnaire with a secret question fails, as does one declined or cancelled.
 */
export class ElicitationQuestioner implements Questioner {
  constructor(
    private readonly elicit: Elicit,
    private readonly mask: (text: string) => string,
  ) {}

  async ask(request: HostInputRequest, signal: AbortSignal): Promise<HostInputResponse> {
    const who = request.stepId === undefined ? `tool ${request.tool}` : `step ${request.stepId}`;
    const secret = request.questions.find((question) => question.secret);
    if (secret)
      throw new ToolError(
        'unsupported',
        `${who}: question ${secret.id} is secret, and an MCP client may not be asked for secrets; give the value through the server's environment (secrets:)`,
      );
    const params: ElicitRequestFormParams = {
      mode: 'form',
      message: this.mask(`Questions from ${who}`),
      requestedSchema: {
        type: 'object',
        properties: Object.fromEntries(request.questions.map((question) => [question.id, field({ ...question, question: this.mask(question.question) })])),
        required: request.questions.filter((question) => question.required).map((question) => question.id),
      },
    };
    const result = await this.elicit(params, signal);
    if (result.action !== 'accept') throw new ToolError('unsupported', `${who}: the questions were ${result.action === 'decline' ? 'declined' : 'cancelled'} in the MCP client`);
    return userResponse(request, answersOf(result.content ?? {}));
  }
}

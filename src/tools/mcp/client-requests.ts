import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, ListRootsRequestSchema, McpError, type ClientCapabilities, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { toToolError } from '../../host/errors.js';
import type { HostInput, HostInputResponse } from '../../host/host-input.js';
import { elicitedContent, parseElicitationForm } from './elicitation-form.js';

/**
 * What rho answers when a server asks the client something: its roots, a person's answers
 * (elicitation, form mode) — and a clear refusal for sampling, since rho has no model.
 */

/** What rho declares: roots (fixed for the run) and form elicitation. Never sampling. */
export const clientCapabilities: ClientCapabilities = { roots: { listChanged: false }, elicitation: { form: {} } };

/** The call a server's request arrives during: it can ask the person running rho, and tell the step. */
export interface ActiveCall {
  /** The step the call runs for: scripted answers are keyed `STEP.FIELD`. */
  stepId: string | undefined;
  ask(input: HostInput): Promise<HostInputResponse>;
  /** One line on the step's progress (why a request was declined). */
  notice(message: string): void;
}

export interface ClientRequestContext {
  server: string;
  /** The workspace root first, then the granted roots: what the policy lets rho touch. */
  roots: readonly string[];
  /** The call a request belongs to, or undefined when none or several are running (nobody to ask for sure). */
  activeCall(): ActiveCall | undefined;
}

/** The elicitation request with its params kept as sent: rho checks them itself (`writeOnly` included). */
const rawElicitRequest = z.looseObject({ method: z.literal('elicitation/create'), params: z.unknown() });

export function rootsList(roots: readonly string[]) {
  return { roots: roots.map((root) => ({ uri: pathToFileURL(root).href, name: path.basename(root) || root })) };
}

/**
 * Answers one elicitation through the step's host input (the questionnaire path): accepted with
 * the typed answers, the server's defaults filling the fields left unanswered; `decline` when
 * nobody can answer here (the notice names the flag) or no field has an answer or a default;
 * `cancel` when the person closed the form or the call was stopped.
 */
export async function answerElicitation(rawParams: unknown, context: ClientRequestContext): Promise<ElicitResult> {
  let form: ReturnType<typeof parseElicitationForm>;
  try {
    form = parseElicitationForm(rawParams);
  } catch (cause) {
    throw new McpError(ErrorCode.InvalidParams, `rho cannot show this form: ${(cause as Error).message}`);
  }
  const call: ActiveCall | undefined = context.activeCall();
  if (!call) return { action: 'decline' };
  let response: HostInputResponse;
  try {
    response = await call.ask(form.input);
  } catch (thrown) {
    const error = toToolError(thrown);
    if (error.kind === 'cancelled' || error.kind === 'interrupted') {
      call.notice(`MCP server ${context.server} asked for input: cancelled (${error.message})`);
      return { action: 'cancel' };
    }
    call.notice(`MCP server ${context.server} asked for input: declined: ${error.message}`);
    return { action: 'decline' };
  }
  const content = elicitedContent(form, response.answers);
  if (Object.keys(content).length === 0 && form.input.questions.length > 0) {
    const first = form.input.questions[0]!.id;
    const key = call.stepId ? `${call.stepId}.${first}` : first;
    call.notice(`MCP server ${context.server} asked for input: declined: no field was answered; answer with --answer ${key}=VALUE (or --answers FILE)`);
    return { action: 'decline' };
  }
  return { action: 'accept', content };
}

/** Installs rho's answers on a client that declared `clientCapabilities`. */
export function installClientRequests(client: Client, context: ClientRequestContext): void {
  client.setRequestHandler(ListRootsRequestSchema, () => rootsList(context.roots));
  client.setRequestHandler(rawElicitRequest, (request) => answerElicitation(request.params, context));
  client.fallbackRequestHandler = async (request) => {
    if (request.method === 'sampling/createMessage') {
      const message = `MCP server ${context.server} asked rho to sample a model (sampling/createMessage); declined: rho has no model`;
      context.activeCall()?.notice(message);
      throw new McpError(ErrorCode.MethodNotFound, `${message}. Run this tool from a client that provides sampling.`);
    }
    throw new McpError(ErrorCode.MethodNotFound, `rho does not answer ${request.method}`);
  };
}

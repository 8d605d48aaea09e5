import type { Tool } from '../host/tool.js';
import { parseTemplate, templateReferences, type Template, type ValueSource } from './expressions/index.js';
import type { StepFile, WorkflowFile } from './schema.js';
import { isPendingServerTool } from './suggest.js';

/**
 * The argument of each tool whose text is run as code or names the program to run. An
 * expression there that can carry text from outside the workflow's author is template
 * injection, GitHub Actions' most common vulnerability; the value belongs in `env:`.
 */
export const codeArguments: Readonly<Record<string, string>> = { shell: 'script', exec: 'command', process_start: 'command' };

/** Tools whose results are what a process printed. */
const processTools: ReadonlySet<string> = new Set(['exec', 'shell', 'process_start', 'process_output']);

/** The policy settings that decide whether a process can reach the network: the file's, or `--allow`/`--ask`/`--sandbox`. */
export interface ProcessNetworkSettings {
  allow?: readonly unknown[] | undefined;
  ask?: readonly unknown[] | undefined;
  sandbox?: unknown;
}

/**
 * Why what processes print may be outside content, or undefined when it cannot be: a process
 * that can reach the network can fetch anything (`curl -s https://…`), as `http_request` can.
 * A process can when an `allow` or `ask` rule grants network access (confined processes get
 * that network, through the proxy or the host's), or when the sandbox is off and every process
 * has the host's network. The settings are read as written (a file not yet validated may hold anything).
 */
export function processNetworkReason(...settings: readonly (ProcessNetworkSettings | undefined)[]): string | undefined {
  for (const setting of settings) {
    if (setting?.sandbox === 'off') return 'processes run unconfined (sandbox: off) and can reach the network';
  }
  for (const setting of settings) {
    const rules = [setting?.allow, setting?.ask].flatMap((list) => (Array.isArray(list) ? list : []));
    for (const rule of rules) {
      if (typeof rule === 'string' && /^\s*network\s*(\(|$)/.test(rule)) return `processes can reach the network (the rule ${rule})`;
    }
  }
  return undefined;
}

/**
 * Which values an expression can read that may come from outside the workflow's author:
 * inputs marked `untrusted: true`, results of tools that bring in outside content (`http_request`,
 * MCP tools that do not declare themselves closed-world, module tools that say so), what
 * processes print when they can reach the network, text answers to a questionnaire, and
 * everything computed from them (`env:` values, results of steps whose
 * arguments read them, results of `uses:` steps). A step's `status` is always trusted.
 */
export class UntrustedValues {
  private readonly inputs = new Map<string, string>();
  private readonly env = new Map<string, string>();
  /** Why a read of a step's result (the keys after `steps.<id>`) is untrusted, by step id. */
  private readonly steps = new Map<string, (keys: readonly string[]) => string | undefined>();
  /**
   * The servers not started yet whose tools' declarations decide whether a step's results are
   * outside content, by step id: its own tool's server, and those its arguments read.
   */
  private readonly undecided = new Map<string, ReadonlySet<string>>();

  /**
   * `processNetwork`: why process output may be outside content (`processNetworkReason`), if it
   * may. `pendingServers`: declared MCP servers not started yet, whose tools are not known.
   */
  constructor(
    file: Pick<WorkflowFile, 'inputs' | 'env'>,
    private readonly processNetwork?: string,
    private readonly pendingServers: readonly string[] = [],
  ) {
    for (const [name, declaration] of Object.entries(file.inputs ?? {})) {
      if (declaration.untrusted) this.inputs.set(name.toLowerCase(), `inputs.${name} is marked untrusted: true`);
    }
    for (const [name, value] of Object.entries(file.env ?? {})) {
      const why = typeof value === 'string' ? this.whyText(value) : undefined;
      if (why !== undefined) this.env.set(name.toLowerCase(), `env.${name} is computed from untrusted values (${why})`);
    }
  }

  /** Why a value read from `source` may come from outside the workflow's author, or undefined when it cannot. */
  private why(source: ValueSource): string | undefined {
    const [name, ...rest] = source.keys;
    switch (source.context) {
      case 'inputs':
        return name === undefined ? this.inputs.values().next().value : this.inputs.get(name.toLowerCase());
      case 'env':
        return name === undefined ? this.env.values().next().value : this.env.get(name.toLowerCase());
      case 'steps':
        return name === undefined ? undefined : this.steps.get(name.toLowerCase())?.(rest);
      default:
        return undefined;
    }
  }

  /** Why one of the values a template can produce is untrusted, or undefined when none is. */
  whyAny(template: Template): string | undefined {
    for (const source of templateReferences(template).valueSources) {
      const why = this.why(source);
      if (why !== undefined) return why;
    }
    return undefined;
  }

  /**
   * The servers not started yet whose tools' declarations decide whether a value a template
   * can produce is outside content: a run checks what reads it once they run.
   */
  serversDeciding(template: Template): string[] {
    const servers = new Set<string>();
    for (const source of templateReferences(template).valueSources) {
      const [name, field] = source.keys;
      if (source.context !== 'steps' || name === undefined || field?.toLowerCase() === 'status') continue;
      for (const server of this.undecided.get(name.toLowerCase()) ?? []) servers.add(server);
    }
    return [...servers];
  }

  /** `whyAny` for the text of an `env:` value; one that does not parse fails the run elsewhere. */
  private whyText(text: string): string | undefined {
    let template: Template;
    try {
      template = parseTemplate(text);
    } catch {
      return undefined;
    }
    return this.whyAny(template);
  }

  /**
   * Records what a step's results carry, once it is compiled: `argumentsWhy` is why its
   * arguments read untrusted values (then its results may repeat them), if they do.
   */
  addStep(step: StepFile, tool: Tool | undefined, argumentsWhy: string | undefined, calledOutputs?: OutputsUntrusted, argumentsUndecided: readonly string[] = []): void {
    const id = step.id;
    const server = tool === undefined && step.tool !== undefined && isPendingServerTool(step.tool, this.pendingServers) ? step.tool.slice(0, step.tool.indexOf('.')) : undefined;
    const undecided = new Set([...argumentsUndecided, ...(server === undefined ? [] : [server])]);
    if (undecided.size > 0) this.undecided.set(id.toLowerCase(), undecided);
    const result = (keys: readonly string[], why: string | undefined) => (keys[0]?.toLowerCase() === 'status' ? undefined : why);
    if (step.uses !== undefined) {
      this.steps.set(id, (keys) => usesResult(id, step.uses!, keys, calledOutputs));
    } else if (argumentsWhy !== undefined) {
      this.steps.set(id, (keys) => result(keys, `steps.${id} is computed from untrusted values (${argumentsWhy})`));
    } else if (tool?.untrustedContent) {
      this.steps.set(id, (keys) => result(keys, `steps.${id} is a result of ${tool.name}, which brings in content from outside`));
    } else if (this.processNetwork !== undefined && step.tool !== undefined && processTools.has(step.tool)) {
      const why = `steps.${id} is what a process printed, and ${this.processNetwork}`;
      this.steps.set(id, (keys) => result(keys, why));
    } else if (step.tool === 'questionnaire') {
      const answers = closedAnswers(step.with?.questions);
      if (answers.everyAnswer) return;
      this.steps.set(id, (keys) => {
        const [field, part, answer] = keys.map((key) => key.toLowerCase());
        const closed = field === 'status' || (field === 'data' && (part === 'source' || (part === 'answers' && answer !== undefined && answers.ids.has(answer))));
        return closed ? undefined : `steps.${id} holds text a person typed`;
      });
    }
  }
}

/**
 * Why each output of a task may carry text from outside the workflow's author (an output not
 * listed cannot), as the task's own steps and inputs decide it.
 */
export type OutputsUntrusted = Readonly<Record<string, string>>;

/**
 * Why a read of a `uses:` step's result is untrusted: its status and (empty) output never are,
 * `data.NAME` is when the called task's output NAME is, and the whole `data` when any output
 * is. Without the called task's outputs (it uses itself, or could not be compiled) every read
 * of its data is, failing closed.
 */
function usesResult(id: string, uses: string, keys: readonly string[], outputs: OutputsUntrusted | undefined): string | undefined {
  const [field, name] = keys.map((key) => key.toLowerCase());
  if (field !== undefined && field !== 'data') return undefined;
  if (!outputs) return `steps.${id} holds the outputs of ${uses}, which could not be checked for outside content`;
  const entries = Object.entries(outputs);
  const why = name === undefined ? entries[0]?.[1] : entries.find(([output]) => output.toLowerCase() === name)?.[1];
  return why === undefined ? undefined : `steps.${id}.data${name === undefined ? '' : `.${name}`} is an output of ${uses} computed from untrusted values (${why})`;
}

const closedQuestionTypes: ReadonlySet<unknown> = new Set(['choice', 'multi', 'confirm']);

/**
 * Which of a questionnaire's answers are not free text: those of confirm, choice and multi
 * questions with a literal id (lower-cased), or every answer when no question asks for text.
 */
function closedAnswers(questions: unknown): { everyAnswer: boolean; ids: Set<string> } {
  const ids = new Set<string>();
  if (!Array.isArray(questions)) return { everyAnswer: false, ids };
  let textQuestions = 0;
  for (const question of questions as unknown[]) {
    const { id, type } = (question ?? {}) as { id?: unknown; type?: unknown };
    if (!closedQuestionTypes.has(type)) textQuestions += 1;
    else if (typeof id === 'string') ids.add(id.toLowerCase());
  }
  return { everyAnswer: textQuestions === 0, ids };
}

import { HostError, ToolError } from './errors.js';
import { isTool, type Tool } from './tool.js';

/**
 * The tools a host can call, by name. Registering a tool grants it nothing, and what the
 * registry hands out cannot run: only a ToolHost runs a tool. A namespace can be
 * expected (an MCP server that is still starting): a call to one of its tools waits until the
 * namespace's tools are registered, or gets the error that kept them from being registered.
 * A namespace's tools can be replaced as a whole (a server that said its tools changed): while
 * they are listed again, calls to them wait for the new ones.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private readonly pending = new Map<string, Promise<ToolError | undefined>>();
  private readonly unsettled = new Set<string>();
  /** The names each namespace's `replaceNamespace` registered. */
  private readonly byNamespace = new Map<string, string[]>();

  constructor(tools: readonly Tool[] = []) {
    for (const tool of tools) this.register(tool);
  }

  /** Adds a tool made by `defineTool`; a second tool of the same name is refused. */
  register(tool: Tool): void {
    if (!isTool(tool)) {
      const named = typeof (tool as { name?: unknown } | null)?.name === 'string' ? ` ${(tool as Tool).name}` : '';
      throw new HostError('invalid_tool', `cannot register tool${named}: it was not made by defineTool (build it with defineTool({ name, description, schema, run }))`);
    }
    if (this.tools.has(tool.name)) throw new HostError('invalid_tool', `a tool named ${tool.name} is already registered; give each tool its own name`);
    this.tools.set(tool.name, tool);
  }

  /**
   * Registers a namespace's tools in place of the ones it had (none, the first time). Each is
   * named `<namespace>.<tool>`; a name another tool already has is refused, leaving the old ones.
   */
  replaceNamespace(namespace: string, tools: readonly Tool[]): void {
    const previous = this.byNamespace.get(namespace) ?? [];
    const kept = new Map(previous.map((name) => [name, this.tools.get(name)!]));
    for (const name of previous) this.tools.delete(name);
    try {
      for (const tool of tools) {
        if (!tool.name.startsWith(`${namespace}.`)) throw new HostError('invalid_tool', `tool ${tool.name} is not of namespace ${namespace}`);
        this.register(tool);
      }
    } catch (error) {
      for (const tool of tools) if (this.tools.get(tool.name) === tool) this.tools.delete(tool.name);
      for (const [name, tool] of kept) this.tools.set(name, tool);
      throw error;
    }
    this.byNamespace.set(
      namespace,
      tools.map((tool) => tool.name),
    );
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  /** Tools named `<namespace>.<tool>` will be registered once `listed` settles (undefined), or never (the error). */
  expect(namespace: string, listed: Promise<ToolError | undefined>): void {
    this.pending.set(namespace, listed);
    this.unsettled.add(namespace);
    void listed.then(() => this.unsettled.delete(namespace));
  }

  /** Namespaces whose tools are not registered yet. */
  pendingNamespaces(): string[] {
    return [...this.unsettled];
  }

  /**
   * A tool by name, waiting for its namespace while that is still expected (or listed again).
   * Undefined when no such tool is or will be registered; the namespace's error when it never was.
   */
  async resolve(name: string, signal: AbortSignal): Promise<Tool | ToolError | undefined> {
    const tool = this.tools.get(name);
    const dot = name.indexOf('.');
    const namespace = dot < 0 ? undefined : name.slice(0, dot);
    const waiting = namespace !== undefined && (tool === undefined || this.unsettled.has(namespace));
    const listed = waiting ? this.pending.get(namespace) : undefined;
    if (!listed) return tool;
    const error = await abortable(listed, signal);
    return error ?? this.tools.get(name);
  }

  list(): Tool[] {
    return [...this.tools.values()];
  }

  names(): string[] {
    return [...this.tools.keys()];
  }
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | ToolError> {
  if (signal.aborted) return Promise.resolve(new ToolError('cancelled', 'the call was cancelled while its tool was still being registered'));
  return new Promise((resolve) => {
    const onAbort = () => resolve(new ToolError('cancelled', 'the call was cancelled while its tool was still being registered'));
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then((value) => {
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    });
  });
}

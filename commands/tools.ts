import { Args, Flags } from '@oclif/core';
import { RhoCommand } from '../src/cli/rho-command.js';
import { readCliEnvironment } from '../src/cli/environment.js';
import { policyFlags, repeatable } from '../src/cli/run-flags.js';
import { HostError } from '../src/host/errors.js';
import { exitCodes } from '../src/host/exit-codes.js';
import type { SelftestResult } from '../src/workflow/extensions/selftest.js';
import type { ToolCatalog, ToolListing } from '../src/workflow/extensions/tool-catalog.js';
import { printable } from '../src/ui/safe-text.js';

type ListedTool = ToolListing & { selftest?: SelftestResult };

export default class Tools extends RhoCommand {
  static override summary = 'List registered tools.';
  static override description =
    `Shows each tool's name, origin (built-in, host for a workflow's module tools, mcp for an MCP server's tools), declared capability classes, execution policy, mode and description; --json adds JSON Schemas of the arguments.

With --file, the workflow's tools are listed too: its modules are imported, which runs their code as rho run would, and its MCP servers are started, each start authorized by the workflow's policy (plus --allow and the other policy flags) exactly as in a run, then stopped. Use it only on workflows you trust; rho validate and rho plan never run a workflow's code.

Host tools are trusted in-process code: the classes they declare are inspectable metadata, not a sandbox.

Exit codes: 0 listed (and every selftest passed), 1 a selftest or a server failed, 2 invalid workflow or usage, 3 a server start was denied.`;

  static override examples = [
    '<%= config.bin %> tools',
    '<%= config.bin %> tools --json',
    '<%= config.bin %> tools exec',
    '<%= config.bin %> tools -f workflows/mcp.yml',
    '<%= config.bin %> tools -f workflows/module-tool.yml --selftest',
  ];

  static override enableJsonFlag = true;

  static override args = {
    name: Args.string({ ignoreStdin: true, description: "One tool to show in full: its arguments with their types and defaults, and its result's data" }),
  };

  static override flags = {
    ...policyFlags,
    file: Flags.string({ char: 'f', summary: 'Also list the module and MCP tools of this workflow (imports its modules: runs their code).', helpValue: 'WORKFLOW' }),
    input: repeatable('Workflow input KEY=VALUE (for MCP server env). Repeatable.', 'KEY=VALUE', 'i'),
    selftest: Flags.boolean({ summary: "Run each tool's selftest in a temporary directory.", default: false }),
  };

  async run(): Promise<ListedTool[] | ListedTool | undefined> {
    const { args, flags } = await this.parse(Tools);
    const { openToolCatalog, toolListing } = await import('../src/workflow/extensions/tool-catalog.js');
    const { assembleRun } = await import('../src/cli/assemble-run.js');
    const { runSettingsOf } = await import('../src/cli/run-settings.js');
    const settings = await this.orExit(async () => runSettingsOf('tools', flags, { file: flags.file }, readCliEnvironment()));
    const quiet = { write: () => {} };
    let shown: ListedTool[] | ListedTool | undefined;
    // Starting a workflow's MCP servers is authorized as in a run: prompts on a terminal, the
    // workflow's own hooks as gates, and every --approve/--yes decision echoed. What servers and
    // modules say (names, descriptions, warnings) is theirs, and a workflow's secrets reach its
    // MCP servers: it goes through the run's masked, guarded streams.
    const exitCode = await assembleRun(settings, { stdout: this.jsonEnabled() ? quiet : process.stdout, stderr: process.stderr }, {}, async (run) => {
      const say = (text: string) => run.streams.stdout.write(`${text}\n`);
      const catalog = await openToolCatalog({ file: settings.file, cwd: process.cwd(), choices: settings.choices, signal: run.signal, ports: run.ports });
      try {
        if (args.name !== undefined) {
          shown = run.masker.maskDeep(await this.showOne(catalog, args.name, say));
          return exitCodes.success;
        }
        const listed: ListedTool[] = catalog.tools.map((tool) => toolListing(tool, this.jsonEnabled()));
        if (flags.selftest) {
          const { runSelftests } = await import('../src/workflow/extensions/selftest.js');
          const results = await runSelftests(catalog.tools);
          for (const [index, result] of results.entries()) listed[index]!.selftest = result;
        }
        say(formatTable(listed));
        if (listed.some((tool) => tool.origin === 'host')) say('\nhost tools are trusted in-process code: their classes are declarations, not a sandbox.');
        if (flags.selftest) say(`\n${formatSelftests(listed)}`);
        shown = run.masker.maskDeep(listed);
        return listed.some((tool) => tool.selftest?.status === 'failed') ? exitCodes.failure : exitCodes.success;
      } finally {
        for (const notice of await catalog.close()) run.warn(`rho: ${notice}`);
      }
    });
    // A failed selftest still lists the tools (and prints them for --json).
    if (shown === undefined) return this.exit(exitCode);
    process.exitCode = exitCode;
    return shown;
  }

  /** `rho tools NAME`: one tool with its arguments and data; an unknown name is a usage error. */
  private async showOne(catalog: ToolCatalog, name: string, say: (text: string) => void): Promise<ListedTool> {
    const { toolListing } = await import('../src/workflow/extensions/tool-catalog.js');
    const tool = catalog.tools.find((candidate) => candidate.name === name);
    if (!tool) {
      const { closestToolNames } = await import('../src/workflow/suggest.js');
      const suggestions = closestToolNames(
        name,
        catalog.tools.map((candidate) => candidate.name),
      );
      const hint = suggestions.length > 0 ? `; did you mean ${suggestions.map((suggestion) => `"${suggestion}"`).join(' or ')}?` : '';
      throw new HostError('usage', `no tool named "${name}"${hint} (rho tools lists them; a workflow's own tools with -f WORKFLOW)`);
    }
    const listing = toolListing(tool, true);
    if (!this.jsonEnabled()) {
      const { describeTool } = await import('../src/cli/describe-tool.js');
      say(describeTool(listing));
    }
    return listing;
  }
}

function formatTable(tools: readonly ListedTool[]): string {
  const rows = tools.map((tool) => [
    printable(tool.name),
    tool.origin,
    tool.classes.length > 0 ? tool.classes.join(',') : '-',
    tool.execution_policy,
    tool.mode,
    `${printable(tool.description.split(/\r\n|\r|\n/)[0] ?? '')}${tool.untrusted_content ? ' [results are untrusted content]' : ''}`,
  ]);
  const header = ['NAME', 'ORIGIN', 'CLASSES', 'POLICY', 'MODE', 'DESCRIPTION'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  return [header, ...rows].map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ')).join('\n');
}

function formatSelftests(tools: readonly ListedTool[]): string {
  return (
    tools
      .filter((tool) => tool.selftest && tool.selftest.status !== 'none')
      .map(({ name, selftest }) => {
        const took = `(${Math.round(selftest!.durationMs)} ms)`;
        return selftest!.status === 'passed' ? `selftest ${printable(name)}: passed ${took}` : `selftest ${printable(name)}: FAILED ${took}: ${printable(selftest!.message ?? '')}`;
      })
      .join('\n') || 'no tool has a selftest'
  );
}

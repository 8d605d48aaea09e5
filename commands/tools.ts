import { Args, Flags } from '@oclif/core';
import { RhoCommand } from '../src/cli/rho-command.js';
import { SecretMasker } from '../src/host/masking.js';
import { canPrompt, readCliEnvironment } from '../src/cli/environment.js';
import { policyFlags, repeatable } from '../src/cli/run-flags.js';
import { cliGrantHints } from '../src/ui/grant-hints.js';
import type { SelftestResult } from '../src/workflow/extensions/selftest.js';
import type { ToolCatalog, ToolListing } from '../src/workflow/extensions/tool-catalog.js';
import { reportStartupError } from '../src/cli/startup-errors.js';
import { printable, safeText } from '../src/ui/safe-text.js';

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

  async run(): Promise<ListedTool[] | ListedTool> {
    const { args, flags } = await this.parse(Tools);
    const { openToolCatalog, toolListing } = await import('../src/workflow/extensions/tool-catalog.js');
    const { createApprovals } = await import('../src/ui/approver/index.js');
    const { cliHooks } = await import('../src/hooks/run-hooks.js');
    const { runChoicesOf } = await import('../src/cli/run-choices-of.js');
    const environment = readCliEnvironment();
    // What servers and modules say (names, descriptions, warnings) is theirs, and a workflow's
    // secrets reach its MCP servers: it is masked, then shown, never obeyed by the terminal.
    const masker = new SecretMasker();
    const stderr = (line: string) => process.stderr.write(`${safeText(masker.mask(line), false)}\n`);
    // Starting a workflow's MCP servers is authorized as in a run: prompts on a terminal, the
    // workflow's own hooks as gates, and every --approve/--yes decision echoed.
    const approvals = createApprovals({
      interactive: canPrompt(environment, flags['no-input']),
      onInterrupt: () => process.exit(130),
      echo: (_stepId, line) => stderr(line),
    });
    let catalog: ToolCatalog;
    try {
      catalog = await openToolCatalog({
        file: flags.file,
        cwd: process.cwd(),
        choices: runChoicesOf(flags),
        signal: new AbortController().signal,
        ports: {
          hostEnv: environment.env,
          ...(approvals.approver && { approver: approvals.approver }),
          onScriptedDecision: approvals.onScriptedDecision,
          grantHints: cliGrantHints,
          hooks: cliHooks({ file: undefined, labels: [], env: environment.env, masker, warn: stderr }),
          masker,
          warn: stderr,
        },
      });
    } catch (error) {
      return this.failed(error, stderr);
    }
    try {
      if (args.name !== undefined) return masker.maskDeep(await this.showOne(catalog, args.name, masker));
      const listed: ListedTool[] = catalog.tools.map((tool) => toolListing(tool, this.jsonEnabled()));
      if (flags.selftest) {
        const { runSelftests } = await import('../src/workflow/extensions/selftest.js');
        const results = await runSelftests(catalog.tools);
        for (const [index, result] of results.entries()) listed[index]!.selftest = result;
      }
      this.log(masker.mask(formatTable(listed)));
      if (listed.some((tool) => tool.origin === 'host')) {
        this.log('\nhost tools are trusted in-process code: their classes are declarations, not a sandbox.');
      }
      if (flags.selftest) this.log(`\n${masker.mask(formatSelftests(listed))}`);
      if (listed.some((tool) => tool.selftest?.status === 'failed')) process.exitCode = 1;
      return masker.maskDeep(listed);
    } finally {
      for (const notice of await catalog.close()) stderr(`rho: ${notice}`);
    }
  }

  /** `rho tools NAME`: one tool with its arguments and data; an unknown name is a usage error. */
  private async showOne(catalog: ToolCatalog, name: string, masker: SecretMasker): Promise<ListedTool> {
    const { toolListing } = await import('../src/workflow/extensions/tool-catalog.js');
    const tool = catalog.tools.find((candidate) => candidate.name === name);
    if (!tool) {
      const { closestToolNames } = await import('../src/workflow/suggest.js');
      const suggestions = closestToolNames(
        name,
        catalog.tools.map((candidate) => candidate.name),
      );
      const hint = suggestions.length > 0 ? `; did you mean ${suggestions.map((suggestion) => `"${suggestion}"`).join(' or ')}?` : '';
      process.stderr.write(masker.mask(`rho: no tool named "${name}"${hint} (rho tools lists them; a workflow's own tools with -f WORKFLOW)\n`));
      return this.exit(2);
    }
    const listing = toolListing(tool, true);
    if (!this.jsonEnabled()) {
      const { describeTool } = await import('../src/cli/describe-tool.js');
      this.log(masker.mask(describeTool(listing)));
    }
    return listing;
  }

  /** Reports why the tools could not be listed, with the exit code `rho run` would use. */
  private failed(error: unknown, stderr: (line: string) => void): never {
    this.exit(reportStartupError(error, stderr));
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

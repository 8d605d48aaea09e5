import type { ApprovalRequest } from '../../host/approval.js';
import { describeRequest, displayPath, grantingRule, type CapabilityRequest, type EnvMode, type NetworkPreview, type WritePreview } from '../../host/capability.js';
import { approveFlag } from '../grant-hints.js';
import { isProtectedEnvName } from '../../host/protected-env.js';
import type { ResolvedPath } from '../../host/workspace.js';
import { printable } from '../safe-text.js';

/** One labelled line of an approval prompt. */
export interface Fact {
  label: string;
  value: string;
}

/** Words as `describeRequest` writes them: plain when safe, else a JSON string (which also escapes control characters). */
function words(parts: readonly string[]): string {
  return parts.length === 0 ? '(none)' : parts.map((part) => printable(/^[\w./@:+,=-]+$/.test(part) ? part : JSON.stringify(part))).join(' ');
}

export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1 && value % 1024 === 0) {
    value /= 1024;
    unit++;
  }
  return `${value} ${units[unit]}`;
}

export function formatLimit(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** `NAME=VALUE` for each variable the step sets; the prompt is masked, so secret values show as ***. */
function assignments(env: Readonly<Record<string, string>>): string {
  return Object.entries(env)
    .map(([name, value]) => `${name}=${printable(JSON.stringify(value))}${isProtectedEnvName(name) ? ' (changes what runs)' : ''}`)
    .join(' ');
}

function envFacts(mode: EnvMode, env: Readonly<Record<string, string>>): string {
  const inherited =
    mode.mode === 'inherit'
      ? 'inherits the allowlisted host variables (PATH, HOME, locale, terminal, CI, toolchains)'
      : mode.mode === 'inherit_all'
        ? 'inherits the whole environment (credentials removed)'
        : mode.mode === 'empty'
          ? 'starts from an empty environment'
          : mode.mode === 'inherit_except'
            ? `inherits the allowlisted host variables but ${words(mode.names)}`
            : `inherits only ${words(mode.names)}`;
  return Object.keys(env).length === 0 ? inherited : `${inherited}; sets ${assignments(env)}`;
}

const scopeText: Readonly<Record<ResolvedPath['scope'], string>> = {
  workspace: 'inside the workspace',
  granted_root: 'in a granted root, outside the workspace',
  unrestricted: 'outside the workspace (unrestricted)',
};

function pathFacts(resolved: ResolvedPath): Fact[] {
  const facts = [{ label: 'path', value: printable(displayPath(resolved)) }];
  if (resolved.lexical !== resolved.canonical) facts.push({ label: 'written as', value: printable(resolved.requested) });
  facts.push({ label: 'where', value: scopeText[resolved.scope] });
  return facts;
}

/** Lines shown for a script: the first few, so a long one cannot push the choices off screen. */
const scriptLinesShown = 12;

function scriptFacts(script: string): Fact[] {
  const lines = script.split('\n');
  const shown = lines.slice(0, scriptLinesShown).map((line, index) => ({ label: index === 0 ? 'script' : '', value: printable(line) }));
  if (lines.length > scriptLinesShown) shown.push({ label: '', value: `… ${lines.length - scriptLinesShown} more lines` });
  return shown;
}

const writeVerb: Readonly<Record<WritePreview['mode'], string>> = {
  create: 'creates the file with',
  overwrite: 'replaces the content with',
  append: 'appends',
  edit: 'replaces texts with',
};

/** What will be written: its size, then its first lines (an edit's as - old / + new). */
function contentFacts(preview: WritePreview, state: ResolvedPath['state']): Fact[] {
  const lines = preview.mode === 'edit' ? '' : `, ${preview.lines} line${preview.lines === 1 ? '' : 's'}`;
  const verb = state === 'missing' && preview.mode !== 'edit' ? writeVerb.create : writeVerb[preview.mode];
  const facts = [{ label: 'content', value: `${verb} ${formatBytes(preview.bytes)}${lines}` }];
  for (const [index, line] of preview.head.entries()) facts.push({ label: index === 0 ? 'first lines' : '', value: `│ ${printable(line)}` });
  const more = preview.lines - preview.head.length;
  if (more > 0) facts.push({ label: '', value: `… ${more} more line${more === 1 ? '' : 's'}` });
  return facts;
}

/** What an HTTP request sends besides its URL's path: names and sizes, never values. */
function sentFacts(preview: NetworkPreview): Fact[] {
  const facts: Fact[] = [];
  if (preview.queryNames.length > 0) facts.push({ label: 'query', value: `${words(preview.queryNames)} (values not shown)` });
  facts.push({ label: 'body', value: preview.bodyBytes === undefined ? 'none' : `${formatBytes(preview.bodyBytes)} will be sent` });
  if (preview.credentialHeaders.length > 0) facts.push({ label: 'credentials', value: `sends ${words(preview.credentialHeaders)} (values not shown)` });
  if (preview.headerNames.length > 0) facts.push({ label: 'headers', value: words(preview.headerNames) });
  return facts;
}

/** The structured facts of a request, in the order a person checks them. */
export function requestFacts(request: CapabilityRequest): Fact[] {
  switch (request.class) {
    case 'read':
      return [...pathFacts(request.path), { label: 'reads', value: request.target === 'tree' ? 'the directory and everything under it' : 'one file' }];
    case 'write':
      return [
        ...pathFacts(request.path),
        { label: 'writes', value: request.path.state === 'missing' ? 'a new file' : 'over an existing file' },
        ...(request.preview ? contentFacts(request.preview, request.path.state) : []),
      ];
    case 'process':
    case 'shell': {
      const { executable } = request;
      const writable = executable.writable ? ', in a directory steps can write' : '';
      const found = executable.lookup === 'path_search' ? `found on PATH as ${printable(executable.requested)}${writable}` : `given as ${printable(executable.requested)}`;
      return [
        ...(request.class === 'shell' ? scriptFacts(request.script) : []),
        { label: 'program', value: `${printable(executable.resolved)} (${found})` },
        { label: 'arguments', value: words(request.argv) },
        { label: 'directory', value: printable(request.cwd) },
        { label: 'environment', value: envFacts(request.envMode, request.env) },
        { label: 'timeout', value: formatLimit(request.wallLimitMs) },
        { label: 'output', value: `at most ${formatBytes(request.outputLimitBytes)}` },
        { label: 'runs', value: request.class === 'shell' ? `as a ${request.shell} script (a shell can run anything)` : 'directly, no shell' },
        ...(request.stdinDigest ? [{ label: 'stdin', value: `given (digest ${request.stdinDigest.slice(0, 12)}…)` }] : []),
      ];
    }
    case 'network':
      return [
        { label: 'method', value: printable(request.method) },
        { label: 'url', value: printable(request.url) },
        { label: 'host', value: printable(request.host) },
        ...(request.preview ? sentFacts(request.preview) : []),
      ];
    case 'network_tool':
      return [{ label: 'tool', value: `${printable(request.tool)} manages its own network access` }];
    case 'skill':
      return [{ label: 'skill', value: printable(request.name) }, ...pathFacts(request.path)];
    case 'instructions':
      return pathFacts(request.path);
  }
}

/** The block above the choices: who asks, what for, the facts, and the flag that would answer it. */
export function approvalHeader(request: ApprovalRequest): string {
  const who = [request.stepId ? `step ${printable(request.stepId)}` : undefined, `tool ${printable(request.tool)}`].filter(Boolean).join(', ');
  const facts = requestFacts(request.request);
  if (request.askedBy) facts.push({ label: 'asked by', value: `the rule ask: ${printable(request.askedBy)}` });
  facts.push({ label: 'next time', value: printable(approveFlag(grantingRule(request.request))) });
  const width = Math.max(...facts.map((fact) => fact.label.length));
  return [
    `Approval needed (${who}): ${request.request.class} request`,
    `  ${printable(describeRequest(request.request))}`,
    ...facts.map((fact) => `    ${fact.label.padEnd(width)}  ${fact.value}`),
  ].join('\n');
}

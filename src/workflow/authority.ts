import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { resolveHostConfig } from './launch.js';
import type { CompiledWorkflow } from './model.js';
import type { RunChoices } from './run-choices.js';

/**
 * What a run of a workflow may do beyond what its steps ask for: its workspace and granted
 * roots, every key of its policy (rules, sandbox, process environment, and any key added
 * later), the rules of the files it calls, the secrets and host variables it reads, its hooks,
 * and its tools (with the content of tool modules, which run in rho's own process). Each fact
 * is kept as canonical JSON under a name a person reads, so two authorities compare fact by fact.
 */
export type RunAuthority = ReadonlyMap<string, string>;

/** The authority of a run of `workflow` with these choices (`cwd` as the run resolves paths, `home` what `~` stands for). */
export function runAuthority(workflow: CompiledWorkflow, choices: RunChoices, cwd: string, home: string | undefined): RunAuthority {
  const file = workflow.file;
  const config = resolveHostConfig(workflow, choices, cwd, {}, home);
  const facts = new Map<string, unknown>([
    ['workspace', config.root],
    ['policy.granted_roots', config.grantedRoots],
    ['policy.allow', config.rules.allow],
    ['policy.ask', config.rules.ask],
    ['policy.deny', config.rules.deny],
    ['policy.sandbox', choices.sandbox ?? file.policy?.sandbox ?? 'auto'],
    ['policy.process_env', file.policy?.process_env ?? 'inherit'],
  ]);
  for (const [key, value] of Object.entries(file.policy ?? {})) if (!facts.has(`policy.${key}`)) facts.set(`policy.${key}`, value);
  facts.set('secrets', file.secrets ?? []);
  facts.set('host_env', file.host_env ?? []);
  facts.set('hooks', file.hooks ?? null);
  facts.set('tools', file.tools ?? []);
  for (const source of file.tools ?? []) {
    if ('module' in source) facts.set(`tool module ${source.module}`, contentOf(path.resolve(workflow.source.directory, source.module)));
  }
  return new Map([...facts].map(([name, value]) => [name, JSON.stringify(value ?? null)]));
}

/** Each fact that differs between two authorities, as a person reads it (`policy.sandbox: "auto" → "off"`). */
export function authorityChanges(before: RunAuthority, after: RunAuthority): string[] {
  const names = [...new Set([...before.keys(), ...after.keys()])];
  return names.filter((name) => before.get(name) !== after.get(name)).map((name) => `${name}: ${describeChange(before.get(name), after.get(name))}`);
}

function describeChange(before: string | undefined, after: string | undefined): string {
  const [was, is] = [before, after].map((text) => (text === undefined ? undefined : (JSON.parse(text) as unknown)));
  if (isTextList(was) && isTextList(is)) {
    const added = is.filter((entry) => !was.includes(entry)).map((entry) => `+ ${JSON.stringify(entry)}`);
    const removed = was.filter((entry) => !is.includes(entry)).map((entry) => `- ${JSON.stringify(entry)}`);
    return [...added, ...removed].join(', ') || 'reordered';
  }
  const short = (value: unknown) => (value === undefined ? 'none' : typeof value === 'object' && value !== null ? 'set' : JSON.stringify(value));
  const [from, to] = [short(was), short(is)];
  return from === to ? 'changed' : `${from} → ${to}`;
}

function isTextList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

/** A digest of a file's content, or why there is none (a change of it reads as "changed"). */
export function contentOf(file: string): { sha256: string } | { unreadable: string } {
  try {
    return { sha256: createHash('sha256').update(readFileSync(file)).digest('hex') };
  } catch (error) {
    return { unreadable: (error as NodeJS.ErrnoException).code ?? 'error' };
  }
}

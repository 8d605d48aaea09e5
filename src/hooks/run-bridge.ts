import type { HostLabels } from '../host/hooks/labels.js';
import type { SecretMasker } from '../host/masking.js';
import type { HookDeclarations, RunHooks } from '../host/run-observer.js';
import { loadHooks } from './load-hooks.js';

/** What a CLI run's hooks are built from: its settings, environment and masking. */
export interface HookOptions {
  /** `--hooks FILE`, absolute. */
  file: string | undefined;
  /** `--label KEY=VALUE`, parsed. */
  labels: HostLabels;
  env: Readonly<Record<string, string | undefined>>;
  masker: SecretMasker;
  warn(line: string): void;
}

/** Loads a run's hook programs and joins them to the run: its events in, their gates out. */
export async function loadRunHooks(options: HookOptions, declared: HookDeclarations, runId: string): Promise<RunHooks> {
  const loaded = await loadHooks({
    file: options.file,
    inline: declared.inline,
    cwd: declared.directory,
    env: options.env,
    secretNames: declared.secretNames,
    labels: options.labels,
    runId,
    redact: (text) => options.masker.mask(text),
    onWarning: (message) => options.warn(`rho: hook warning: ${message}`),
    sandbox: declared.sandbox,
  });
  return {
    gates: loaded.gates,
    observer: loaded.observer,
    async finish() {
      await loaded.finish();
      for (const hook of loaded.summary().hooks) {
        if (hook.runs === 0) continue;
        options.warn(
          `rho: hook ${hook.name} (${hook.role}): ${hook.runs} run(s), mean ${Math.round(hook.meanMs)}ms, max ${Math.round(hook.maxMs)}ms${hook.failures ? `, ${hook.failures} failed` : ''}${hook.dropped ? `, ${hook.dropped} events dropped` : ''}`,
        );
      }
    },
  };
}

import { afterToolUseCapability } from '../host/hooks/capability-summary.js';
import type { HostLabels } from '../host/hooks/labels.js';
import { HookEventReader } from '../host/hooks/run-events.js';
import type { SecretMasker } from '../host/masking.js';
import type { HookDeclarations, RunHooks } from '../host/run-observer.js';
import { loadHooks, type LoadedHooks } from './load-hooks.js';

/** What a CLI run's hooks are built from: its flags, environment and masking. */
export interface HookOptions {
  /** `--hooks FILE` */
  file: string | undefined;
  /** `--label KEY=VALUE` */
  labels: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  masker: SecretMasker;
  warn(line: string): void;
}

/** Loads a run's hook programs and joins them to the run: its events in, their gates out. */
export async function loadRunHooks(options: HookOptions, labels: HostLabels, declared: HookDeclarations, runId: string): Promise<RunHooks> {
  const loaded = await loadHooks({
    ...(options.file !== undefined && { file: options.file }),
    inline: declared.inline,
    cwd: declared.directory,
    env: options.env,
    secretNames: declared.secretNames,
    labels,
    runId,
    redact: (text) => options.masker.mask(text),
    onWarning: (message) => options.warn(`rho: hook warning: ${message}`),
    ...(declared.sandbox && { sandbox: declared.sandbox }),
  });
  return joinToRun(loaded, options.warn);
}

function joinToRun(loaded: LoadedHooks, warn: (line: string) => void): RunHooks {
  const reader = new HookEventReader();
  return {
    gates: loaded.gates,
    observer: {
      event(event) {
        const source = reader.read(event);
        if (source) loaded.notify(source);
      },
      callFinished(call, result, authorized) {
        loaded.notify({
          kind: 'after_tool_use',
          stepId: call.stepId,
          result,
          capability: afterToolUseCapability(authorized ? [authorized] : [], true),
          delegation: call.delegation,
        });
      },
    },
    async finish() {
      await loaded.finish();
      const summary = loaded.summary();
      for (const hook of summary.hooks) {
        if (hook.runs === 0) continue;
        warn(
          `rho: hook ${hook.name} (${hook.role}): ${hook.runs} run(s), mean ${Math.round(hook.meanMs)}ms, max ${Math.round(hook.maxMs)}ms${hook.failures ? `, ${hook.failures} failed` : ''}${hook.dropped ? `, ${hook.dropped} events dropped` : ''}`,
        );
      }
    },
  };
}

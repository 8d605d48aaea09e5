import { afterToolUseCapability, parseHostLabels } from '../../host/hooks/index.js';
import type { ToolErrorKind } from '../../host/errors.js';
import type { SecretMasker } from '../../host/masking.js';
import { loadHooks, type LoadedHooks } from '../../hooks/load-hooks.js';
import type { RunEvent } from '../../workflow/events.js';
import type { RunHooks, RunHooksFactory } from '../../workflow/launch.js';

export interface HookOptions {
  /** `--hooks FILE` */
  file: string | undefined;
  /** `--label KEY=VALUE` */
  labels: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  masker: SecretMasker;
  warn(line: string): void;
}

/**
 * The hooks of a CLI run: the `--hooks` file and the workflow's `hooks:` key, as gates for the
 * host and observers fed with the run's events. Returns no hooks when neither is given.
 */
export function cliHooks(options: HookOptions): RunHooksFactory {
  const labels = parseHostLabels(options.labels);
  return async (workflow, runId) => {
    if (options.file === undefined && workflow.file.hooks === undefined) return noHooks;
    const loaded = await loadHooks({
      ...(options.file !== undefined && { file: options.file }),
      inline: workflow.file.hooks,
      cwd: workflow.source.directory,
      env: options.env,
      secretNames: workflow.file.secrets ?? [],
      labels,
      runId,
      redact: (text) => options.masker.mask(text),
      onWarning: (message) => options.warn(`rho: hook warning: ${message}`),
    });
    return bridge(loaded, options.warn);
  };
}

const noHooks: RunHooks = { gates: [], observeRun: () => {}, observeHost: () => {}, finish: async () => {} };

function bridge(loaded: LoadedHooks, warn: (line: string) => void): RunHooks {
  const tools = new Map<string, string>();
  const errorKinds = new Map<string, ToolErrorKind>();
  return {
    gates: loaded.gates,
    observeRun(event: RunEvent) {
      switch (event.type) {
        case 'run_started':
          for (const step of event.steps) tools.set(step.id, step.tool);
          return loaded.notify({ kind: 'session_started', workflow: event.workflow, workspaceRoot: event.workspace });
        case 'step_started':
          return loaded.notify({ kind: 'step_started', stepId: event.stepId, tool: event.tool });
        case 'step_finished':
          if (event.error) errorKinds.set(event.stepId, event.error.kind);
          return loaded.notify({
            kind: 'step_finished',
            stepId: event.stepId,
            tool: tools.get(event.stepId) ?? '',
            status: event.status,
            durationMs: event.durationMs,
            errorKind: event.error?.kind,
          });
        case 'run_finished': {
          const common = { exitCode: event.exitCode, durationMs: event.durationMs, counts: event.counts };
          if (event.exitCode === 0) return loaded.notify({ kind: 'run_completed', ...common });
          return loaded.notify({ kind: 'run_failed', ...common, failedStep: event.firstFailure, errorKind: event.firstFailure ? errorKinds.get(event.firstFailure) : undefined });
        }
        default:
          return;
      }
    },
    observeHost(event) {
      if (event.type !== 'call_finished') return;
      loaded.notify({
        kind: 'after_tool_use',
        stepId: event.stepId,
        result: event.result,
        capability: afterToolUseCapability(event.authorized ? [event.authorized] : [], true),
      });
    },
    async finish() {
      await loaded.finish();
      const summary = loaded.summary();
      for (const hook of summary.hooks) {
        if (hook.runs === 0) continue;
        warn(`rho: hook ${hook.name} (${hook.role}): ${hook.runs} run(s), mean ${Math.round(hook.meanMs)}ms, max ${Math.round(hook.maxMs)}ms${hook.failures ? `, ${hook.failures} failed` : ''}${hook.dropped ? `, ${hook.dropped} events dropped` : ''}`);
      }
    },
  };
}

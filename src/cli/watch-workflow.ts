import path from 'node:path';
import { watch } from 'chokidar';
import { ToolError } from '../host/errors.js';
import { exitCodes } from '../host/exit-codes.js';
import { interruptReason } from '../host/tool-host.js';
import { confirmAtTerminal } from '../ui/confirm-prompt.js';
import { authorityChanges, contentOf, runAuthority, type RunAuthority } from '../workflow/authority.js';
import type { CompiledWorkflow } from '../workflow/model.js';
import { runningUserHome } from '../workflow/user-home.js';
import { privateStoreOf } from './cache-places.js';
import type { RunStreams } from './environment.js';
import { reportStartupError } from './startup-errors.js';
import { runWorkflowCommand } from './run-workflow.js';
import type { RunSettings } from './run-settings.js';
import { resolveWatchTargets, type WatchTargets } from './watch-targets.js';

/** Changes closer together than this start one run. */
export const watchDebounceMs = 150;

/** Why a run was stopped by a watch: a newer change makes it stale. */
const changedReason = 'changed';

/** chokidar's events for a directory: one made or removed with no file in it changes nothing a step reads (nor rho's own mount points). */
const directoryEvents: ReadonlySet<string> = new Set(['addDir', 'unlinkDir']);

interface CurrentRun {
  controller: AbortController;
  done: Promise<number>;
}

/** What a watch does after a change: run, wait for the next change, or stop. */
type NextStep = 'run' | 'wait' | 'stop';

/**
 * The authority a watch started with and holds every run to: the workflow's (`runAuthority`)
 * and the content of the `--hooks` file, read again for each run.
 */
function watchedAuthority(workflow: CompiledWorkflow, settings: RunSettings, cwd: string, home: string | undefined): RunAuthority {
  const authority = new Map(runAuthority(workflow, settings.choices, cwd, home));
  const hooksFile = settings.hooks?.file;
  if (hooksFile !== undefined) authority.set('--hooks file', JSON.stringify(contentOf(hooksFile)));
  return authority;
}

/**
 * `rho run --watch`: runs the workflow, then again after each change (debounced), cancelling a
 * run still in progress (its processes are killed, as on an interrupt). Each run opens with a
 * separator line. Ctrl-C (or SIGTERM) stops the run in progress and exits 130.
 *
 * Each run is held to the authority the watch started with: a changed workflow is checked again
 * before it runs (an invalid one waits for the next change), and one whose policy, hooks or tools
 * differ runs only when a person confirms it at a terminal. Without one (CI, --no-input) the
 * watch stops, exit 3, rather than run what a step may have rewritten.
 */
export async function watchWorkflowCommand(settings: RunSettings & { file: string }, streams: RunStreams): Promise<number> {
  const cwd = process.cwd();
  const privatePaths = privateStoreOf(settings.environment.env)?.paths ?? [];
  const home = runningUserHome(settings.environment.env);
  const report = (line: string) => streams.stderr.write(`${line}\n`);
  let targets: WatchTargets;
  try {
    targets = await resolveWatchTargets(settings.file, settings.choices, cwd, privatePaths, home ?? null);
  } catch (error) {
    return reportStartupError(error, report);
  }
  let approved = watchedAuthority(targets.workflow, settings, cwd, home);
  // The separator goes where a person reads: stdout, unless stdout carries NDJSON events.
  const say = (line: string) => (settings.reports?.mode === 'json' ? streams.stderr : streams.stdout).write(`${line}\n`);
  const watcher = watch(targets.root, { ignoreInitial: true, ignored: (absolute) => targets.ignored(absolute) });
  await new Promise<void>((resolve, reject) => watcher.once('ready', resolve).once('error', reject));

  let runs = 0;
  let current: CurrentRun | undefined;
  let timer: NodeJS.Timeout | undefined;
  let changed: string[] = [];
  let exiting = false;
  let restarts = Promise.resolve();
  let finish: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => (finish = resolve));

  /** The run's own check, on the file it loads: it may have changed again since the watch checked it. */
  const admitWorkflow = (workflow: CompiledWorkflow) => {
    const changes = authorityChanges(approved, watchedAuthority(workflow, settings, cwd, home));
    if (changes.length > 0)
      throw new ToolError('policy_denied', `${settings.file} changed again as the run started, and not as confirmed (${changes.join('; ')}); nothing was run`);
  };
  const start = (because: string) => {
    runs += 1;
    say(`── rho watch: run ${runs} (${because}) ${'─'.repeat(20)}`);
    const controller = new AbortController();
    const run: CurrentRun = { controller, done: runWorkflowCommand(settings, streams, { stop: controller.signal, admitWorkflow }) };
    current = run;
    void run.done.then((code) => {
      if (current !== run || exiting) return;
      current = undefined;
      say(`── rho watch: run ${runs} ended with exit ${code}; waiting for changes (Ctrl-C stops)`);
    });
  };
  /** Checks the workflow as it is now before it runs again. */
  const recheck = async (): Promise<NextStep> => {
    let next: WatchTargets;
    try {
      next = await resolveWatchTargets(settings.file, settings.choices, cwd, privatePaths, home ?? null);
    } catch (error) {
      reportStartupError(error, report);
      say('── rho watch: not run; waiting for changes (Ctrl-C stops)');
      return 'wait';
    }
    const authority = watchedAuthority(next.workflow, settings, cwd, home);
    const changes = authorityChanges(approved, authority);
    if (changes.length > 0) {
      report(`rho watch: what ${settings.file} may do is not what this watch started with:`);
      for (const change of changes) report(`  ${change}`);
      if (!settings.interactive) {
        report('rho watch: a run with changed authority needs a person to confirm it at a terminal; the watch stops (run rho again to use the new file)');
        return 'stop';
      }
      if (!(await confirmAtTerminal('Run it with this authority from now on?'))) {
        say('── rho watch: not run; waiting for changes (Ctrl-C stops)');
        return 'wait';
      }
      approved = authority;
    }
    targets = next;
    return 'run';
  };
  const stop = async (code: number) => {
    exiting = true;
    clearTimeout(timer);
    const running = current;
    running?.controller.abort(interruptReason);
    await running?.done;
    await watcher.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    finish(code);
  };
  const restart = async () => {
    if (changed.length === 0) return;
    const files = [...new Set(changed)];
    changed = [];
    const running = current;
    current = undefined;
    if (running) {
      say(`── rho watch: ${files[0]} changed; stopping run ${runs}`);
      running.controller.abort(changedReason);
      await running.done;
    }
    if (exiting) return;
    const next = await recheck();
    if (exiting) return;
    if (next === 'stop') await stop(exitCodes.denied);
    else if (next === 'run') start(`${files.slice(0, 3).join(', ')}${files.length > 3 ? ', …' : ''} changed`);
  };
  watcher.on('all', (event, absolute) => {
    if (exiting || directoryEvents.has(event) || !targets.triggers(absolute)) return;
    changed.push(path.relative(targets.root, absolute).split(path.sep).join('/'));
    clearTimeout(timer);
    // One restart at a time: a change during a restart waits for it, then starts the next run.
    timer = setTimeout(() => (restarts = restarts.then(restart)), watchDebounceMs);
  });

  let signals = 0;
  const onSignal = () => {
    signals += 1;
    if (signals > 1) process.exit(exitCodes.interrupted);
    void stop(exitCodes.interrupted);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  start('first run');
  return finished;
}

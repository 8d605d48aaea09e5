import { FanoutRenderer } from './fanout.js';
import { openFileSink } from './file-sink.js';
import type { GuardedStreams } from './guarded-sink.js';
import type { Renderer } from './renderer.js';
import type { ReportFormat } from './report-formats.js';

export type OutputMode = 'auto' | 'fancy' | 'plain' | 'json';
export const outputModes: readonly OutputMode[] = ['auto', 'fancy', 'plain', 'json'];

export interface Terminal {
  /** stdout is a terminal. */
  isTTY: boolean;
  /** CI=true (or another CI marker) is set. */
  ci: boolean;
  /** GITHUB_ACTIONS=true: plain output uses workflow commands. */
  githubActions: boolean;
  /** $GITHUB_STEP_SUMMARY, where the summary table is appended on GitHub Actions. */
  stepSummaryFile: string | undefined;
}

/** A report asked for, and the file it goes to. */
export interface ReportFile {
  format: ReportFormat;
  file: string;
}

export interface OutputRequest {
  mode: OutputMode;
  files: readonly ReportFile[];
}

/** `auto` means fancy on a terminal outside CI, plain everywhere else. */
export function resolveOutputMode(mode: OutputMode, terminal: Pick<Terminal, 'isTTY' | 'ci'>): Exclude<OutputMode, 'auto'> {
  if (mode !== 'auto') return mode;
  return terminal.isTTY && !terminal.ci ? 'fancy' : 'plain';
}

/** The display for a resolved mode; listr2 and the report writers load only when used. */
async function createDisplay(mode: Exclude<OutputMode, 'auto'>, terminal: Terminal, streams: GuardedStreams): Promise<Renderer> {
  // listr2 writes to the terminal itself, past the guarded streams: on GitHub Actions, where
  // every line is read for workflow commands, fancy is drawn as the runner's plain groups.
  if (mode === 'fancy' && !terminal.githubActions) {
    const { FancyRenderer } = await import('./fancy.js');
    return new FancyRenderer(streams.stdout);
  }
  if (mode === 'json') {
    const { NdjsonRenderer } = await import('./ndjson.js');
    const { PlainRenderer } = await import('./plain.js');
    // Only the sink's `write` is passed: ending the process's stdout would break oclif's final flush.
    return new FanoutRenderer([new NdjsonRenderer({ write: (text) => streams.stdout.write(text) }), new PlainRenderer(streams.stderr)]);
  }
  if (terminal.githubActions) {
    const { GitHubActionsRenderer } = await import('./github.js');
    const summary = terminal.stepSummaryFile === undefined ? undefined : await openFileSink(terminal.stepSummaryFile, 'the step summary ($GITHUB_STEP_SUMMARY)', { append: true });
    return new GitHubActionsRenderer(streams.stdout, summary);
  }
  const { PlainRenderer } = await import('./plain.js');
  return new PlainRenderer(streams.stdout);
}

/**
 * Every output a run writes: the display, plus each report asked for (`reportFormats`).
 * Files are opened before the run starts so a target that cannot be written is a usage error,
 * not a lost report. The events they are given are masked already (`assembleRun`).
 */
export async function createOutputs(request: OutputRequest, terminal: Terminal, streams: GuardedStreams): Promise<Renderer> {
  const renderers = [await createDisplay(resolveOutputMode(request.mode, terminal), terminal, streams)];
  for (const { format, file } of request.files) renderers.push(await format.open(await openFileSink(file, format.what)));
  return renderers.length === 1 ? renderers[0]! : new FanoutRenderer(renderers);
}

import type { FileSink } from './file-sink.js';
import type { Renderer } from './renderer.js';

/** A report a run also writes to a file, when its flag names one (`--junit FILE`). */
export interface ReportFormat {
  /** The flag of `rho run` that names the file. */
  readonly flag: string;
  /** The flag's summary in `--help`. */
  readonly summary: string;
  /** What the report is, in the message when its file cannot be written. */
  readonly what: string;
  /** The reporter writing to the opened file; its module loads only for a run that asks for it. */
  open(file: FileSink): Promise<Renderer>;
}

/** Every report format: a new one is its reporter and one entry here (the flag, the settings and the outputs follow). */
export const reportFormats = [
  {
    flag: 'events',
    summary: 'Also write NDJSON events to FILE.',
    what: 'the events file (--events)',
    open: async (file) => new (await import('./ndjson.js')).NdjsonRenderer(file),
  },
  {
    flag: 'junit',
    summary: 'Write a JUnit XML report (one testcase per step) to FILE.',
    what: 'the JUnit report (--junit)',
    open: async (file) => new (await import('../reports/junit.js')).JunitReporter(file),
  },
] as const satisfies readonly ReportFormat[];

export type ReportFlag = (typeof reportFormats)[number]['flag'];

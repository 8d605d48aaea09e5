import vm from 'node:vm';
import { ToolError } from '../../host/errors.js';

export interface LineMatch {
  line: number;
  text: string;
}

/** Longest matched line text returned; the rest is cut with an ellipsis. */
const shownLineLength = 500;

/**
 * Runs the per-line test loop in a separate V8 context with a time limit, so a regular
 * expression that backtracks catastrophically is stopped instead of freezing the process
 * (a JavaScript timer cannot interrupt a running RegExp; the VM watchdog can).
 */
const matchScript = new vm.Script(`
  (() => {
    let start = 0;
    let line = 1;
    for (;;) {
      const end = text.indexOf('\\n', start);
      let candidate = text.slice(start, end === -1 ? text.length : end);
      if (candidate.endsWith('\\r')) candidate = candidate.slice(0, -1);
      if (pattern.test(candidate)) {
        found.push(line, candidate);
        if (found.length >= limit * 2) return;
      }
      if (end === -1) return;
      start = end + 1;
      line += 1;
    }
  })();
`);

/** Compiles a search pattern; a syntax error becomes a message for the `pattern` field. */
export function compilePattern(source: string, caseInsensitive: boolean): RegExp {
  return new RegExp(source, caseInsensitive ? 'i' : '');
}

/**
 * One context serves every matcher: creating a V8 context costs milliseconds, and a run is
 * synchronous, so its inputs are set and cleared with no other run in between.
 */
let sharedContext: vm.Context | undefined;

export class LineMatcher {
  constructor(
    private readonly pattern: RegExp,
    private readonly timeoutMs: number,
    /** Masks the run's secrets in a matched line before it is cut to its shown length. */
    private readonly mask: (text: string) => string = (text) => text,
  ) {}

  /** Lines of `text` the pattern matches, at most `limit` of them. */
  matches(text: string, limit: number, shown: string): LineMatch[] {
    const found: (number | string)[] = [];
    const context = (sharedContext ??= vm.createContext({}));
    Object.assign(context, { text, pattern: this.pattern, found, limit });
    try {
      matchScript.runInContext(context, { timeout: this.timeoutMs });
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
        throw new ToolError('execution_failed', `the pattern took longer than ${this.timeoutMs} ms on ${shown} (it probably backtracks badly); simplify it`, {
          cause,
          details: { field: 'pattern' },
        });
      }
      throw cause;
    } finally {
      Object.assign(context, { text: '', pattern: undefined, found: undefined });
    }
    const matches: LineMatch[] = [];
    for (let index = 0; index < found.length; index += 2) {
      const text = this.mask(found[index + 1] as string);
      matches.push({ line: found[index] as number, text: text.length > shownLineLength ? `${text.slice(0, shownLineLength)}…` : text });
    }
    return matches;
  }
}

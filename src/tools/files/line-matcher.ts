import vm from 'node:vm';
import { ToolError } from '../../host/errors.js';
import { requiredLiteral } from './required-literal.js';

export interface LineMatch {
  line: number;
  text: string;
}

/** One text to search, with the name an error about it shows. */
export interface MatchInput {
  text: string;
  shown: string;
}

/** Longest matched line text returned; the rest is cut with an ellipsis. */
const shownLineLength = 500;

/**
 * Runs the per-line test loop in a separate V8 context with a time limit, so a regular
 * expression that backtracks catastrophically is stopped instead of freezing the process
 * (a JavaScript timer cannot interrupt a running RegExp; the VM watchdog can).
 *
 * One run goes through many texts: starting the watchdog costs far more than testing a small
 * file. `current` tells, after a timeout, which text was being searched. With a `finder` (the
 * pattern's required literal) only lines holding the literal are tested: no other line can match.
 */
const matchScript = new vm.Script(`
  (() => {
    for (; current < texts.length; current++) {
      const text = texts[current];
      let start = 0;
      let line = 1;
      for (;;) {
        let end;
        if (finder === undefined) {
          end = text.indexOf('\\n', start);
        } else {
          finder.lastIndex = start;
          const hit = finder.exec(text);
          if (hit === null) break;
          end = text.indexOf('\\n', start);
          while (end !== -1 && end < hit.index) {
            start = end + 1;
            line += 1;
            end = text.indexOf('\\n', start);
          }
        }
        let candidate = text.slice(start, end === -1 ? text.length : end);
        if (candidate.endsWith('\\r')) candidate = candidate.slice(0, -1);
        if (pattern.test(candidate)) {
          found.push(current, line, candidate);
          if (found.length >= limit * 3) return;
        }
        if (end === -1) break;
        start = end + 1;
        line += 1;
      }
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

function escapeForPattern(literal: string): string {
  return literal.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

export class LineMatcher {
  /** Finds the next occurrence of the pattern's required literal, when it has one. */
  private readonly finder: RegExp | undefined;
  /** The required literal as bytes, when a file's raw bytes can be checked for it before decoding. */
  private readonly literalBytes: Buffer | undefined;

  constructor(
    private readonly pattern: RegExp,
    private readonly timeoutMs: number,
    /** Masks the run's secrets in a matched line before it is cut to its shown length. */
    private readonly mask: (text: string) => string = (text) => text,
  ) {
    const literal = requiredLiteral(pattern);
    this.finder = literal === undefined ? undefined : new RegExp(escapeForPattern(literal), `g${pattern.flags}`);
    // ASCII bytes decode to themselves and nothing else decodes to ASCII, so a file whose bytes
    // lack an ASCII literal has no line holding it; case-insensitive literals are left to the finder.
    this.literalBytes = literal !== undefined && !pattern.ignoreCase && /^[\x01-\x7f]+$/.test(literal) ? Buffer.from(literal, 'latin1') : undefined;
  }

  /** False only when no line of the file with these bytes can match (it lacks the required literal). */
  mayMatch(bytes: Buffer): boolean {
    return this.literalBytes === undefined || bytes.includes(this.literalBytes);
  }

  /** Lines of `text` the pattern matches, at most `limit` of them. */
  matches(text: string, limit: number, shown: string): LineMatch[] {
    return this.matchAll([{ text, shown }], limit)[0] ?? [];
  }

  /**
   * The matching lines of each input, in order, at most `limit` in all: the result has one list
   * per input, empty for inputs after the limit was reached. An input the pattern takes longer
   * than the time limit on, searched alone, fails the whole call, as it would searched by itself.
   */
  matchAll(inputs: readonly MatchInput[], limit: number): LineMatch[][] {
    const results: LineMatch[][] = inputs.map(() => []);
    let from = 0;
    let remaining = limit;
    while (from < inputs.length && remaining > 0) {
      const run = this.run(inputs, from, remaining);
      for (let index = 0; index < run.found.length; index += 3) {
        const input = run.found[index] as number;
        if (run.timedOutAt !== undefined && input >= run.timedOutAt) break;
        const text = this.mask(run.found[index + 2] as string);
        results[input]!.push({ line: run.found[index + 1] as number, text: text.length > shownLineLength ? `${text.slice(0, shownLineLength)}…` : text });
        remaining -= 1;
      }
      if (run.timedOutAt === undefined) break;
      if (run.timedOutAt === from) {
        throw new ToolError('execution_failed', `the pattern took longer than ${this.timeoutMs} ms on ${inputs[from]!.shown} (it probably backtracks badly); simplify it`, {
          cause: run.cause,
          details: { field: 'pattern' },
        });
      }
      // The input it stopped in shared the time limit with those before it: it gets one of its own.
      from = run.timedOutAt;
    }
    return results;
  }

  private run(inputs: readonly MatchInput[], from: number, limit: number): { found: (number | string)[]; timedOutAt?: number; cause?: unknown } {
    const found: (number | string)[] = [];
    const context = (sharedContext ??= vm.createContext({}));
    Object.assign(context, { texts: inputs.map((input) => input.text), current: from, pattern: this.pattern, finder: this.finder, found, limit });
    try {
      matchScript.runInContext(context, { timeout: this.timeoutMs });
      return { found };
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return { found, timedOutAt: context['current'] as number, cause };
      throw cause;
    } finally {
      Object.assign(context, { texts: undefined, pattern: undefined, finder: undefined, found: undefined });
    }
  }
}

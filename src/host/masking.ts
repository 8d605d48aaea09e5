import { HostError, hostErrorKinds, RhoError, ToolError, type HostErrorKind } from './errors.js';
import { mayContinueWrappedBase64, minMaskableLength, secretForms, type SecretForm } from './secret-forms.js';
/** What a masked secret is replaced with in every output. */
export const maskText = '***';

export { minMaskableLength };

/**
 * Replaces secret values with `***` in every form `secretForms` knows: as written, JSON-, HTML-
 * or percent-escaped (any case, `+` for a space), NFD, base64 at any alignment and wrapped at
 * any column, and each line of a multi-line secret. So any text is masked where it is written
 * out, however rho or a program formatted the value first. Longer secrets are tried first, so
 * a secret inside another is fully hidden.
 */
export class SecretMasker {
  private readonly known = new Set<string>();
  private forms: readonly SecretForm[] = [];
  private pattern: RegExp | undefined;
  private longest = 0;
  private spansLines = false;

  constructor(secrets: readonly string[] = []) {
    this.add(...secrets);
  }

  /** Adds secrets learned during a run (answers to secret questions). */
  add(...secrets: readonly string[]): void {
    for (const secret of secrets) {
      if (secret.length < minMaskableLength) throw new HostError('usage', `a secret shorter than ${minMaskableLength} characters cannot be masked safely`);
    }
    const added = secrets.filter((secret) => !this.known.has(secret));
    if (added.length === 0) return;
    for (const secret of added) this.known.add(secret);
    // Longer secrets first: at a place where two could start, the one that contains the other wins.
    const bySize = [...this.known].sort((a, b) => b.length - a.length);
    this.forms = bySize.flatMap((secret) => secretForms(secret));
    this.longest = Math.max(...this.forms.map((form) => form.longest));
    this.spansLines = this.forms.some((form) => form.crossesLines);
    this.pattern = new RegExp(this.forms.map((form) => form.source).join('|'), 'g');
  }

  /** Longest text a secret's form can span: a stream must hold back this many characters less one. */
  get longestForm(): number {
    return this.longest;
  }

  /** Whether some secret holds a line break: only then can a secret continue past the end of any line. */
  get crossesLines(): boolean {
    return this.spansLines;
  }

  get empty(): boolean {
    return this.pattern === undefined;
  }

  mask(text: string): string {
    if (!this.pattern || text.length < minMaskableLength) return text;
    return text.replace(this.pattern, maskText);
  }

  /** Where secrets occur in a text, as [start, end) offsets. */
  spans(text: string): [number, number][] {
    if (!this.pattern) return [];
    return [...text.matchAll(this.pattern)].map((match) => [match.index, match.index + match[0].length]);
  }

  /** A deep copy of a JSON-like value with every string masked (object keys included). */
  maskDeep<T>(value: T): T {
    if (!this.pattern) return value;
    return maskValue(value, this) as T;
  }

  /** A masker for a stream of chunks: secrets split across chunk boundaries are still masked. */
  stream(): StreamMasker {
    return new StreamMasker(this);
  }
}

function maskValue(value: unknown, masker: SecretMasker): unknown {
  if (typeof value === 'string') return masker.mask(value);
  if (Array.isArray(value)) return value.map((item) => maskValue(item, masker));
  if (value !== null && typeof value === 'object' && !(value instanceof Error)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [masker.mask(key), maskValue(item, masker)]));
  }
  if (value instanceof Error) return maskedError(value, masker.mask(value.message));
  return value;
}

/** An error with its message masked, of its kind (anything not rho's is a bug: `internal`). */
function maskedError(error: Error, message: string): RhoError {
  if (error instanceof RhoError && !(error instanceof ToolError) && isHostErrorKind(error.kind)) return new HostError(error.kind, message);
  return new ToolError(error instanceof ToolError ? error.kind : 'internal', message);
}

function isHostErrorKind(kind: string): kind is HostErrorKind {
  return (hostErrorKinds as readonly string[]).includes(kind);
}

/**
 * Masks a stream of text before it is split into lines, cut or stored: it holds back the last
 * `longest - 1` characters of each chunk until the next chunk (or `end()`) shows whether a
 * secret continues. Complete lines are never held back unless a secret can span lines, or the
 * last of them may be a wrapped base64 line whose encoding goes on, so a process's progress
 * shows as soon as its lines end.
 */
export class StreamMasker {
  private pending = '';

  constructor(private readonly masker: SecretMasker) {}

  push(chunk: string): string {
    if (this.masker.empty) return chunk;
    const text = this.pending + chunk;
    let cut = Math.max(0, text.length - (this.masker.longestForm - 1));
    if (!this.masker.crossesLines) cut = Math.max(cut, completeLinesEnd(text));
    for (const [start, end] of this.masker.spans(text)) if (start < cut && end > cut) cut = end;
    this.pending = text.slice(cut);
    return this.masker.mask(text.slice(0, cut));
  }

  end(): string {
    const rest = this.masker.mask(this.pending);
    this.pending = '';
    return rest;
  }
}

/**
 * Where the complete lines of a text end that no secret can continue past: after the last line
 * break, less any lines before it that may be wrapped base64 still going on.
 */
function completeLinesEnd(text: string): number {
  let end = text.lastIndexOf('\n') + 1;
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 2) + 1;
    if (!mayContinueWrappedBase64(text.slice(start, end - 1).replace(/\r$/, ''))) break;
    end = start;
  }
  return end;
}

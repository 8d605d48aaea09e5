import { HostError } from './errors.js';
/** What a masked secret is replaced with in every output. */
export const maskText = '***';

/** Shortest secret that can be masked without hiding ordinary text. */
export const minMaskableLength = 4;

/**
 * The base64 text a value encodes to wherever it starts in a longer encoded byte stream. Base64
 * works in 3-byte groups, so a value after 0, 1 or 2 other bytes (`printf 'x%s' "$S" | base64`,
 * `user:$TOKEN` in HTTP Basic auth) encodes three different ways. For each offset, the value's
 * bytes from the next group boundary on are encoded, keeping only the characters that depend on
 * the value alone: neither the bytes before it nor those after it change them.
 */
function base64Alignments(bytes: Buffer): string[] {
  const forms: string[] = [];
  for (const skipped of [0, 1, 2]) {
    const aligned = bytes.subarray(skipped);
    const determined = Math.floor((aligned.length * 4) / 3);
    forms.push(aligned.toString('base64').slice(0, determined), aligned.toString('base64url').slice(0, determined));
  }
  return forms;
}

function encodings(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const base64 = bytes.toString('base64');
  const forms = [
    value,
    base64,
    base64.replace(/=+$/, ''),
    bytes.toString('base64url'),
    ...base64Alignments(bytes),
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, '+'),
  ];
  if (value.includes('\n')) {
    for (const line of value.split(/\r?\n/)) if (line.trim().length >= minMaskableLength) forms.push(line);
  }
  return forms;
}

/**
 * Replaces secret values — and their base64 and URL-encoded forms, and each line of a multi-line
 * secret — with `***`. Longer forms are replaced first so a secret inside another is fully hidden.
 */
export class SecretMasker {
  private readonly known = new Set<string>();
  private forms: readonly string[] = [];
  private pattern: RegExp | undefined;
  private spansLines = false;

  constructor(secrets: readonly string[] = []) {
    this.add(...secrets);
  }

  /** Adds secrets learned during a run (answers to secret questions). */
  add(...secrets: readonly string[]): void {
    for (const secret of secrets) {
      if (secret.length < minMaskableLength) throw new HostError('usage', `a secret shorter than ${minMaskableLength} characters cannot be masked safely`);
    }
    for (const secret of secrets) for (const form of encodings(secret)) if (form.length >= minMaskableLength) this.known.add(form);
    this.forms = [...this.known].sort((a, b) => b.length - a.length);
    this.spansLines = this.forms.some((form) => form.includes('\n'));
    this.pattern = this.forms.length > 0 ? new RegExp(this.forms.map(escapeRegExp).join('|'), 'g') : undefined;
  }

  /** Longest form a secret can take: a stream must hold back this many characters less one. */
  get longestForm(): number {
    return this.forms[0]?.length ?? 0;
  }

  /** Whether some form holds a line break: only then can a secret continue past the end of a line. */
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
  if (value instanceof Error) return new Error(masker.mask(value.message));
  return value;
}

/**
 * Masks a stream of text before it is split into lines, cut or stored: it holds back the last
 * `longest - 1` characters of each chunk until the next chunk (or `end()`) shows whether a
 * secret continues. Complete lines are never held back unless a secret can span lines, so
 * a process's progress shows as soon as its lines end.
 */
export class StreamMasker {
  private pending = '';

  constructor(private readonly masker: SecretMasker) {}

  push(chunk: string): string {
    if (this.masker.empty) return chunk;
    const text = this.pending + chunk;
    let cut = Math.max(0, text.length - (this.masker.longestForm - 1));
    if (!this.masker.crossesLines) cut = Math.max(cut, text.lastIndexOf('\n') + 1);
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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

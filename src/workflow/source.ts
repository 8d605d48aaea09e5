import { ToolError } from '../host/errors.js';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Alias, type Document, type Node, type YAMLError } from 'yaml';
import { findProtoKey } from '../host/prototype-keys.js';
import { decodeTextFile } from '../host/utf8.js';
import { parseCacheAt, type CachedParse, type ParseCachePlace, type Position } from './parse-cache.js';
import type { Problem } from './problems.js';

/** Largest workflow file rho reads. */
export const maxWorkflowBytes = 1024 * 1024;

/** Most alias references a file may expand to (yaml's own limit is per anchor use). */
const maxAliasCount = 100;

export type NodePath = readonly PropertyKey[];

/** A parsed YAML workflow that can still say where each value came from. */
export class WorkflowSource {
  /** The document's plain data, once built (`toData`). */
  private data: { value: unknown } | undefined;
  /** The document, once parsed: a source read from the cache parses it only when asked a position it does not have. */
  private document: Document | undefined;
  private lines = new LineCounter();
  private released = false;
  /** Every position asked so far, by query: what the cache keeps with the data. */
  private readonly positions: Map<string, Position>;
  /** Whether the cache has everything this source knows (it came from there, and no new position was asked). */
  private cached: boolean;

  private constructor(
    readonly file: string,
    private text: string,
    from: { document: Document; lines: LineCounter } | CachedParse,
    /** Where this parse is kept, and the files it calls are read through (`ParseCachePlace`); none: nowhere. */
    readonly cachePlace?: ParseCachePlace,
  ) {
    if ('document' in from) {
      this.document = from.document;
      this.lines = from.lines;
      this.positions = new Map();
      this.cached = false;
    } else {
      this.data = { value: from.data };
      this.positions = new Map(from.positions);
      this.cached = true;
    }
  }

  /**
   * Reads and parses a file; syntax problems are returned, never thrown. With a cache place, text
   * parsed before without a problem is taken from there.
   */
  static async read(file: string, cachePlace?: ParseCachePlace): Promise<{ source?: WorkflowSource; problems: Problem[] }> {
    const at = (message: string): { problems: Problem[] } => ({ problems: [{ file, line: 1, col: 1, message }] });
    let size: number;
    try {
      const info = await stat(file);
      if (!info.isFile()) return at('not a regular file');
      size = info.size;
    } catch (cause) {
      return at(`cannot read the workflow: ${(cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (cause as Error).message}`);
    }
    if (size > maxWorkflowBytes) return at(`the file is ${size} bytes; workflows are limited to ${maxWorkflowBytes} bytes`);
    const cache = parseCacheAt(cachePlace);
    const decoded = decodeTextFile(await readFile(file));
    if ('problem' in decoded) return { problems: [{ file, ...decoded.problem }] };
    const { text } = decoded;
    const kept = cache?.read(file, text);
    if (kept) return { source: new WorkflowSource(file, text, kept, cachePlace), problems: [] };
    return WorkflowSource.parse(file, text, cachePlace);
  }

  static parse(file: string, text: string, cachePlace?: ParseCachePlace): { source?: WorkflowSource; problems: Problem[] } {
    const lines = new LineCounter();
    const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true, strict: true });
    const problems = syntaxProblems(file, text, lines, [...document.errors, ...document.warnings]);
    if (document.errors.length > 0) return { problems };
    const source = new WorkflowSource(file, text, { document, lines }, cachePlace);
    try {
      source.toData();
    } catch (error) {
      // yaml refuses to expand aliases past the limit ("billion laughs"): a problem of the file.
      if (!(error instanceof ReferenceError)) throw error;
      const alias = firstAlias(document);
      const at = lines.linePos(alias?.range?.[0] ?? 0);
      return { problems: [{ file, ...at, message: `its aliases expand to more than ${maxAliasCount} references; rho refuses a file that could expand without bound` }] };
    }
    const protoKey = findProtoKey(source.toData());
    if (protoKey) {
      const at = source.position(protoKey, { key: true });
      return { problems: [{ file, ...at, message: 'the key "__proto__" is refused: JavaScript reads it as an object\'s prototype, not as data; rename it' }] };
    }
    return { source, problems };
  }

  get directory(): string {
    return path.dirname(path.resolve(this.file));
  }

  /**
   * The plain data of the document (aliases bounded to stop "billion laughs" expansion), built
   * once: it is read before validation (`tools:`) and by it. Callers must not change it.
   */
  toData(): unknown {
    if (this.data === undefined) this.data = { value: this.parsed().toJS({ maxAliasCount }) };
    return this.data.value;
  }

  /**
   * Keeps this parse in the CLI's cache, with every position asked of it so far. Called once a
   * file has been checked, and only for a file whose parse found no problem (warnings included).
   */
  keep(): void {
    const cache = parseCacheAt(this.cachePlace);
    if (!cache || this.cached || this.released) return;
    cache.store(this.file, { text: this.text, data: this.toData(), positions: this.positions });
    this.cached = true;
  }

  /**
   * Lets go of the parsed document and its data once nothing will ask for a position again (a
   * run, once its steps are compiled): for a large file they are most of what a run holds.
   */
  release(): void {
    this.released = true;
    this.document = undefined;
    this.data = undefined;
    this.positions.clear();
    this.text = '';
  }

  private parsed(): Document {
    if (this.released) throw new ToolError('internal', `${this.file} was released, its document is gone`);
    // Read from the cache: the same text parses to the document the cached data came from.
    this.document ??= parseDocument(this.text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true, strict: true });
    return this.document;
  }

  /** Where the value at `nodePath` starts; the nearest existing ancestor when it is missing. */
  position(nodePath: NodePath, options: { key?: boolean } = {}): Position {
    const key = options.key ?? false;
    return this.remembered(queryOf(nodePath, key ? 'key' : 'value'), () => {
      const node = this.nodeAt(nodePath, key);
      const offset = node?.range?.[0] ?? 0;
      return this.lines.linePos(offset);
    });
  }

  /**
   * The position of a character inside a string value: exact for plain and single-line quoted
   * scalars, the value's start otherwise.
   */
  positionInString(nodePath: NodePath, offset: number): Position {
    return this.remembered(queryOf(nodePath, offset), () => {
      const node = this.nodeAt(nodePath, false);
      if (!node || !isScalar(node) || !node.range) return this.position(nodePath);
      const raw = this.text.slice(node.range[0], node.range[1]);
      const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE';
      const exact = (node.type === 'PLAIN' || quoted) && !raw.includes('\n') && !raw.includes('\\') && !raw.includes("''");
      return this.lines.linePos(node.range[0] + (exact ? offset + (quoted ? 1 : 0) : 0));
    });
  }

  /** A position asked before, else `find`'s answer, remembered (a query naming a symbol is not). */
  private remembered(query: string | undefined, find: () => Position): Position {
    const known = query === undefined ? undefined : this.positions.get(query);
    if (known) return { ...known };
    const { line, col } = find();
    if (query !== undefined && !this.released) {
      this.positions.set(query, { line, col });
      this.cached = false;
    }
    return { line, col };
  }

  private nodeAt(nodePath: NodePath, key: boolean): Node | undefined {
    let node: unknown = this.parsed().contents;
    let found: Node | undefined = node as Node;
    for (const [index, segment] of nodePath.entries()) {
      const last = index === nodePath.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === segment);
        if (!pair) return found;
        node = last && key ? pair.key : pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        node = node.items[segment];
      } else {
        return found;
      }
      if (!node) return found;
      found = node as Node;
    }
    return found;
  }
}

/** A position query as the cache keys it: the path, and what of it is asked (its key, its value, or a character of it). */
function queryOf(nodePath: NodePath, what: 'key' | 'value' | number): string | undefined {
  if (nodePath.some((segment) => typeof segment === 'symbol')) return undefined;
  return JSON.stringify([what, ...nodePath]);
}

/**
 * Syntax errors and warnings located where yaml found them (its `pos`; `linePos` is only set
 * with prettyErrors), once per place and message: one mistake can be reported by several stages.
 */
function syntaxProblems(file: string, text: string, lines: LineCounter, errors: readonly YAMLError[]): Problem[] {
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const error of errors) {
    const position = lines.linePos(Math.min(error.pos[0], text.length));
    const message = error.code === 'DUPLICATE_KEY' ? duplicateKeyMessage(text, error.pos) : error.message.split('\n')[0]!;
    const key = `${position.line}:${position.col}:${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push({ file, line: position.line, col: position.col, message });
  }
  return problems;
}

function duplicateKeyMessage(text: string, [start]: [number, number]): string {
  const line = text.slice(start, text.indexOf('\n', start) < 0 ? undefined : text.indexOf('\n', start));
  const key = /^(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([^:#{}[\],]*[^\s:#{}[\],]))/.exec(line);
  const name = key?.[1] ?? key?.[2] ?? key?.[3];
  return `duplicate key${name ? ` ${JSON.stringify(name.slice(0, 80))}` : ''}: a key may appear only once in a map`;
}

function firstAlias(document: Document): Alias | undefined {
  let found: Alias | undefined;
  visit(document, {
    Alias(_, node) {
      found = node;
      return visit.BREAK;
    },
  });
  return found;
}

import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { builtOnce } from '../host/built-once.js';
import { keyedDigest, openSealed, sealText, type DigestKey } from '../host/keyed-digest.js';
import { findProtoKey } from '../host/prototype-keys.js';

/*
 * What a valid workflow file parsed to, kept per user: the next load of the same text at the
 * same path takes its data and positions from here instead of parsing the YAML again. A cold
 * parse is most of what loading a large file costs (bench/README.md, *Workflow load and peak RSS*).
 * Only a parse that found nothing wrong is kept; the data is validated and compiled again on
 * every load, so every check still runs, and a position no earlier load asked for is answered
 * by parsing the text then. An entry names its text by a keyed digest, not a copy, and is
 * sealed with the user's key: an entry anyone else wrote or changed is ignored (the file is
 * parsed afresh), so no one who can write the cache's directory can make rho load a policy the
 * file does not hold.
 */

/**
 * Where parses are kept: a directory, and the key that seals them (asked for only when the cache
 * is used). The CLI names one (`workflowParseCache`); the library none, so it parses every time.
 */
export interface ParseCachePlace {
  dir: string;
  key(): DigestKey | undefined;
}

/** A position in the file, as problems and compiled steps carry it. */
export interface Position {
  line: number;
  col: number;
}

/** A parse that can be kept: the file's text (only its digest is kept), its plain data, and the positions asked of it, by query. */
export interface CachedParse {
  text: string;
  data: unknown;
  positions: ReadonlyMap<string, Position>;
}

/** Most entries kept (one per workflow file); the least recently written go first. */
const maxEntries = 64;

/** An entry larger than this is neither written nor read. */
const maxEntryBytes = 8 * 1024 * 1024;

/**
 * Which build of rho (and so of yaml) wrote an entry: the size and time of the code this module
 * is part of (the CLI's bundle). An entry another build wrote is not used, so an upgrade of
 * yaml never serves a parse the new one would not make. Read once, when first needed.
 */
let build: string | undefined;
function buildOf(): string {
  if (build === undefined) {
    const { size, mtimeMs } = statSync(fileURLToPath(import.meta.url));
    build = `rho-workflow-parse 2, ${size}:${mtimeMs}`;
  }
  return build;
}

/** An entry as written; built when the cache is first read (a run of a file new to it never builds it). */
const entrySchema = builtOnce(() => {
  const position = z.tuple([z.number().int().min(1), z.number().int().min(1)]);
  return z.strictObject({
    format: z.string(),
    /** Keyed digest of the file's text. */
    textDigest: z.string(),
    data: z.unknown(),
    positions: z.record(z.string(), position),
  });
});

/** What a seal of an entry is for: the parse of this one file. */
const purposeOf = (file: string) => `rho workflow parse ${file}`;

/** A directory of kept parses, one file per workflow path; anything unreadable or unsealed there is a miss. */
export class ParseCache {
  constructor(
    readonly dir: string,
    private readonly key: () => DigestKey | undefined,
  ) {}

  /** The kept parse of `file` when its text is exactly `text` (and its data is safe to use as plain data). */
  read(file: string, text: string): CachedParse | undefined {
    const entry = this.entryOf(file);
    try {
      if (statSync(entry).size > maxEntryBytes) return undefined;
      const key = this.key();
      if (!key) return undefined;
      const body = openSealed(key, purposeOf(path.resolve(file)), readFileSync(entry, 'utf8'));
      if (body === undefined) return undefined;
      const parsed = entrySchema().safeParse(JSON.parse(body));
      if (!parsed.success || parsed.data.format !== buildOf() || parsed.data.textDigest !== keyedDigest(key, text)) return undefined;
      // Checked as any file on disk is: data with a __proto__ key is never handed out.
      if (findProtoKey(parsed.data.data) !== undefined) return undefined;
      const positions = new Map(Object.entries(parsed.data.positions).map(([query, [line, col]]) => [query, { line, col }]));
      return { text, data: parsed.data.data, positions };
    } catch {
      return undefined;
    }
  }

  /** Keeps a parse of `file` (written whole, then renamed into place); data JSON cannot hold exactly is not kept. */
  store(file: string, parse: CachedParse): void {
    if (!isJsonData(parse.data)) return;
    const positions = Object.fromEntries([...parse.positions].map(([query, { line, col }]) => [query, [line, col]]));
    const entry = this.entryOf(file);
    const partial = `${entry}.${process.pid}.tmp`;
    try {
      const key = this.key();
      if (!key) return;
      const body = sealText(key, purposeOf(path.resolve(file)), JSON.stringify({ format: buildOf(), textDigest: keyedDigest(key, parse.text), data: parse.data, positions }));
      if (body.length > maxEntryBytes) return;
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      writeFileSync(partial, body, { mode: 0o600 });
      renameSync(partial, entry);
      this.evict();
    } catch {
      // The cache only saves time; rho loads the same without it.
      rmSync(partial, { force: true });
    }
  }

  private entryOf(file: string): string {
    return path.join(this.dir, `${nameOf(path.resolve(file))}.json`);
  }

  private evict(): void {
    const entries = readdirSync(this.dir).filter((name) => name.endsWith('.json'));
    if (entries.length <= maxEntries) return;
    const written = entries.map((name) => ({ name, at: statSync(path.join(this.dir, name)).mtimeMs })).sort((a, b) => a.at - b.at);
    for (const { name } of written.slice(0, entries.length - maxEntries)) rmSync(path.join(this.dir, name), { force: true });
  }
}

/**
 * A file name for a path, readable and short enough for any file system: paths that share one
 * only take turns in it, since an entry is used only for its exact text.
 */
function nameOf(file: string): string {
  return file.replace(/[^A-Za-z0-9._-]/g, '_').slice(-160);
}

/** Whether JSON gives back exactly this value: no NaN, infinities or -0, only plain objects and arrays. */
function isJsonData(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every(isJsonData);
  if (typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return (prototype === Object.prototype || prototype === null) && Object.values(value).every(isJsonData);
}

let shared: { place: ParseCachePlace; cache: ParseCache } | undefined;

/** The cache kept at a place, opened once per place; none without a place. */
export function parseCacheAt(place: ParseCachePlace | undefined): ParseCache | undefined {
  if (place === undefined) return undefined;
  if (shared?.place !== place) shared = { place, cache: new ParseCache(place.dir, () => place.key()) };
  return shared.cache;
}

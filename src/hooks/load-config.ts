import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { HostError } from '../host/errors.js';
import { hooksConfigSchema, type HooksConfig } from './config.js';
import { decodeTextFile } from '../host/utf8.js';

/** One place hooks were declared: its checked configuration and the directory its relative paths start from. */
export interface HooksSource {
  config: HooksConfig;
  baseDir: string;
  /** How messages name it: `hooks file ./hooks.toml` or `workflow hooks:`. */
  origin: string;
}

/** Reads and checks a TOML hooks file (`--hooks FILE`); relative commands start from the file's directory. */
export async function readHooksFile(file: string, cwd: string): Promise<HooksSource> {
  const absolute = path.resolve(cwd, file);
  const origin = `hooks file ${file}`;
  let bytes: Buffer;
  try {
    bytes = await readFile(absolute);
  } catch (cause) {
    throw new HostError('invalid_hooks', `${origin} cannot be read (${(cause as NodeJS.ErrnoException).code ?? 'error'}); check the --hooks path`, {
      cause,
    });
  }
  const decoded = decodeTextFile(bytes);
  if ('problem' in decoded) throw new HostError('invalid_hooks', `${file}:${decoded.problem.line}:${decoded.problem.col}: ${decoded.problem.message}`);
  const { text } = decoded;
  // Loaded only here, so runs without a hooks file never pay for the TOML parser.
  const { parse, TomlError } = await import('smol-toml');
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (cause) {
    const where = cause instanceof TomlError ? `${file}:${cause.line}:${cause.column}` : file;
    throw new HostError('invalid_hooks', `${where}: invalid TOML: ${firstLine((cause as Error).message)}`, { cause });
  }
  return { config: parseHooksConfig(raw, origin), baseDir: path.dirname(absolute), origin };
}

/** Checks the workflow's `hooks:` value (already parsed from YAML); relative commands start from `baseDir`. */
export function parseInlineHooks(value: unknown, baseDir: string): HooksSource {
  const origin = 'workflow hooks:';
  return { config: parseHooksConfig(value, origin), baseDir, origin };
}

export function parseHooksConfig(raw: unknown, origin: string): HooksConfig {
  const parsed = hooksConfigSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${fieldOf(issue)}: ${issue.message}`);
  throw new HostError('invalid_hooks', `${origin} is invalid:\n  ${problems.join('\n  ')}`, { cause: parsed.error });
}

function fieldOf(issue: z.core.$ZodIssue): string {
  const segments = issue.path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : `.${String(segment)}`));
  const field = segments.join('').replace(/^\./, '');
  if (issue.code === 'unrecognized_keys') return [field, ...issue.keys].filter(Boolean).join('.');
  return field || '(top level)';
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}

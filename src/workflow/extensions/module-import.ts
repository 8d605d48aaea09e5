import { stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { HostError } from '../../host/errors.js';

/** How long a tool module gets to finish loading (its top-level code, awaits included). */
export const moduleLoadTimeoutMs = 10_000;

const javascriptExtensions = new Set(['.mjs', '.js', '.cjs']);
const typescriptExtensions = new Set(['.ts', '.mts', '.cts']);

/** The module that imports tool modules (and tsx), loaded when the first is imported. */
const importer = () => import('./dynamic-import.js');

/** Why a module could not be loaded; the message is shown at the module's `tools:` entry. */
export class ModuleLoadError extends HostError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('invalid_tool', message, options);
  }
}

/**
 * TypeScript modules go through tsx's scoped loader API (`tsImport`), which compiles on import
 * without registering a loader for the whole process. tsx is a development tool, not a
 * dependency of rho: when it is missing the module should be compiled to `.mjs` instead.
 */
async function importTypeScript(url: string): Promise<unknown> {
  let api: typeof import('tsx/esm/api');
  try {
    api = (await (await importer()).importModule('tsx/esm/api')) as typeof import('tsx/esm/api');
  } catch (cause) {
    throw new ModuleLoadError('a TypeScript tool module needs tsx where rho is installed (npm install --save-dev tsx), or write the module as .mjs', {
      cause,
    });
  }
  return api.tsImport(url, import.meta.url);
}

/**
 * Imports a tool module (trusted host code: its top level runs in rho's process). The load is
 * bounded in time, so a module that never finishes loading is reported instead of hanging rho.
 */
export async function importToolModule(file: string): Promise<Record<string, unknown>> {
  const extension = path.extname(file).toLowerCase();
  const typescript = typescriptExtensions.has(extension);
  if (!typescript && !javascriptExtensions.has(extension)) {
    throw new ModuleLoadError(`a tool module is a .mjs, .js, .cjs or .ts file, not ${extension || 'a file without extension'}`);
  }
  try {
    if (!(await stat(file)).isFile()) throw new ModuleLoadError(`${file} is not a file`);
  } catch (cause) {
    if (cause instanceof ModuleLoadError) throw cause;
    throw new ModuleLoadError(`no tool module at ${file}`, { cause });
  }
  const url = pathToFileURL(file).href;
  const loading = typescript ? importTypeScript(url) : (await importer()).importModule(url);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ModuleLoadError(`the module did not finish loading within ${moduleLoadTimeoutMs / 1000}s`)), moduleLoadTimeoutMs);
    timer.unref();
  });
  try {
    return (await Promise.race([loading, expired])) as Record<string, unknown>;
  } catch (cause) {
    if (cause instanceof ModuleLoadError) throw cause;
    throw new ModuleLoadError(`the module failed to load: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  } finally {
    clearTimeout(timer);
  }
}

import { readFile, stat } from 'node:fs/promises';
import { parse } from 'dotenv';
import { HostError, ToolError } from '../host/errors.js';
import type { ToolHost } from '../host/tool-host.js';

/** An env file larger than this is refused: it is configuration, not data. */
const maxEnvFileBytes = 1024 * 1024;
const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Who reads a workflow's env files, as authorization and hooks see it. */
export const envFileSubject = { id: 'env_file', tool: 'env_file', args: {} };

/**
 * The variables of a workflow's `env_file:` entries (dotenv format: comments, quotes, `export`,
 * multi-line values), later files overriding earlier ones. Each file is resolved in the
 * workspace and read only once a `read` request for it is granted; a refusal is thrown.
 */
export async function loadEnvFiles(files: readonly string[], host: ToolHost, signal: AbortSignal): Promise<Record<string, string>> {
  const variables: Record<string, string> = {};
  for (const file of files) {
    const resolved = await host.workspace.resolveForRead(file).catch((error: unknown) => {
      throw new HostError('usage', `env_file ${file}: ${(error as Error).message}`, { cause: error });
    });
    if (resolved.entry !== 'file') throw new HostError('usage', `env_file ${file} is not a regular file`);
    const denial = await host.authorizeRequest(envFileSubject, { class: 'read', path: resolved, target: 'file' }, signal);
    if (denial) throw new ToolError(denial.kind, `env_file ${file}: ${denial.message}`, { cause: denial });
    const { canonical } = await host.workspace.revalidate(resolved);
    if ((await stat(canonical)).size > maxEnvFileBytes) throw new HostError('usage', `env_file ${file} is larger than ${maxEnvFileBytes} bytes`);
    const content = await readFile(canonical);
    for (const [name, value] of Object.entries(parse(content))) {
      if (!variableName.test(name)) throw new HostError('usage', `env_file ${file}: "${name}" is not a variable name (letters, digits and _, not starting with a digit)`);
      variables[name] = value;
    }
  }
  return variables;
}

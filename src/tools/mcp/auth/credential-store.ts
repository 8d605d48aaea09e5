import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { chmod, lstat, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ToolError } from '../../../host/errors.js';

/**
 * The user's MCP sign-ins: one file, `$XDG_CONFIG_HOME/rho/mcp-credentials.json` (default
 * `~/.config/rho`), readable by the user alone (0600, in a 0700 directory). It holds, for each
 * server URL, the OAuth client rho registered (or was given) and the tokens it got. Nothing of it
 * is ever written into a workflow, the workspace, events or logs. A file that others can read, or
 * that is not a plain file, is refused rather than used.
 */

/** Largest credentials file rho reads. */
const maxFileBytes = 1024 * 1024;

const clientSchema = z.looseObject({ client_id: z.string().min(1), client_secret: z.string().optional() });
const tokensSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string(),
  refresh_token: z.string().optional(),
  scope: z.string().optional(),
  /** The authorization server that issued them: the SDK sends a refresh token to that one only. */
  issuer: z.string().optional(),
  /** When the access token expires, milliseconds since the epoch (from `expires_in` when it was saved). */
  expires_at: z.number().optional(),
});
const entrySchema = z.strictObject({ client: clientSchema.optional(), tokens: tokensSchema.optional() });
const fileSchema = z.strictObject({ version: z.literal(1), servers: z.record(z.string(), entrySchema) });

export type StoredTokens = z.infer<typeof tokensSchema>;
export type StoredEntry = z.infer<typeof entrySchema>;

/** Where the credentials file is, from the user's environment: XDG_CONFIG_HOME, else HOME/.config. */
export function resolveCredentialsFile(env: Readonly<Record<string, string | undefined>>): string {
  const configHome = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : env.HOME ? path.join(env.HOME, '.config') : undefined;
  if (!configHome) throw new ToolError('unsupported', 'rho cannot tell where to keep MCP sign-ins: set HOME or XDG_CONFIG_HOME');
  return path.join(configHome, 'rho', 'mcp-credentials.json');
}

/** The key a server's sign-in is kept under: its URL without query or fragment. */
export function serverKey(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

export class CredentialStore {
  constructor(readonly file: string) {}

  private async readAll(): Promise<z.infer<typeof fileSchema>> {
    let stats: Stats;
    try {
      stats = await lstat(this.file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, servers: {} };
      throw error;
    }
    if (!stats.isFile()) throw new ToolError('unsupported', `${this.file} is not a plain file; rho keeps MCP sign-ins only in one`);
    if ((stats.mode & 0o077) !== 0) {
      throw new ToolError('unsupported', `${this.file} can be read by other users; rho refuses to use it: run chmod 600 ${this.file}, or delete it and sign in again`);
    }
    if (stats.size > maxFileBytes) throw new ToolError('unsupported', `${this.file} is larger than ${maxFileBytes / 1024} KiB`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(this.file, 'utf8'));
    } catch (cause) {
      throw new ToolError('unsupported', `${this.file} is not JSON; delete it and sign in again`, { cause });
    }
    const checked = fileSchema.safeParse(parsed);
    if (!checked.success) throw new ToolError('unsupported', `${this.file} is not a credentials file of rho's; delete it and sign in again`);
    return checked.data;
  }

  async get(key: string): Promise<StoredEntry | undefined> {
    return (await this.readAll()).servers[key];
  }

  /** Changes one server's entry (undefined removes it) and writes the file whole, 0600, replacing it at once. */
  async update(key: string, change: (entry: StoredEntry) => StoredEntry | undefined): Promise<void> {
    const all = await this.readAll();
    const next = change(all.servers[key] ?? {});
    if (next === undefined) delete all.servers[key];
    else all.servers[key] = next;
    await this.write(all);
  }

  private async write(all: z.infer<typeof fileSchema>): Promise<void> {
    const directory = path.dirname(this.file);
    await mkdir(directory, { recursive: true, mode: 0o700 });
    await chmod(directory, 0o700);
    const temporary = `${this.file}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(all, null, 2)}\n`);
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(temporary, { force: true });
      throw error;
    }
    await handle.close();
    await rename(temporary, this.file);
  }
}

/** Tokens as the token endpoint sent them, with `expires_in` turned into a time that outlives the process. */
export function tokensToStore(
  tokens: {
    access_token: string;
    token_type: string;
    refresh_token?: string | undefined;
    scope?: string | undefined;
    issuer?: string | undefined;
    expires_in?: number | undefined;
  },
  now: number,
): StoredTokens {
  return {
    access_token: tokens.access_token,
    token_type: tokens.token_type,
    ...(tokens.refresh_token !== undefined && { refresh_token: tokens.refresh_token }),
    ...(tokens.scope !== undefined && { scope: tokens.scope }),
    ...(tokens.issuer !== undefined && { issuer: tokens.issuer }),
    ...(tokens.expires_in !== undefined && { expires_at: now + tokens.expires_in * 1000 }),
  };
}

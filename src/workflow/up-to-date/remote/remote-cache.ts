import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CapabilityRequest } from '../../../host/capability.js';
import { ToolError } from '../../../host/errors.js';
import type { ToolCall } from '../../../host/prepared-call.js';
import type { ResolvedPath, Workspace } from '../../../host/workspace.js';
import { compileGlob } from '../../../tools/files/glob.js';
import { openTargetDirectory } from '../../../tools/files/missing-directories.js';
import { stageFile } from '../../../tools/files/staged-file.js';
import { cacheFormatVersion } from '../cache-key.js';
import { ArtifactRefused, maxArtifactBytes, packArtifact, unpackArtifact, type Artifact, type ArtifactFile } from './artifact.js';
import type { ArtifactStore, CacheProblem, RequestGate } from './turbo-client.js';

/** Decides one request a restore or an upload makes, with the step's call as its subject. */
export type CacheAuthorizer = (subject: ToolCall, request: CapabilityRequest, signal: AbortSignal) => Promise<ToolError | undefined>;

/** What a step that succeeded leaves for the cache: its result, and how long it took. */
export interface CachedResult {
  output: string;
  data: unknown;
  durationMs: number;
}

/** What a restore put back: the step's recorded result, and the files written. */
export interface RestoredResult {
  output: string;
  data: unknown;
  files: readonly string[];
}

/** Largest artifact uploaded: the body limit of a default turborepo-remote-cache server. */
const maxUploadBytes = 100 * 1024 * 1024;

export interface RemoteCacheOptions {
  store: ArtifactStore;
  workspace: Workspace;
  authorize: CacheAuthorizer;
  warn(line: string): void;
}

/**
 * A run's use of a shared cache. A hit is restored only when every file in it is one the step's
 * `generates:` globs match, at a plain path inside the workspace, and a write the run's policy
 * allows; otherwise nothing is written and the step runs. Uploads go on beside the run and are
 * waited for at its end. Nothing the cache does fails a step: every problem is a warning, and
 * one that says the server cannot serve this run (unreachable, a refused token, a policy that
 * denies it) turns the cache off for the rest of the run, said once.
 */
export class RemoteCache {
  readonly #options: RemoteCacheOptions;
  readonly #uploads = new Set<Promise<void>>();
  #off = false;

  constructor(options: RemoteCacheOptions) {
    this.#options = options;
  }

  get readOnly(): boolean {
    return this.#options.store.readOnly;
  }

  /** Restores the step's outputs from the artifact stored under `hash`; undefined when the step must run. */
  async restore(hash: string, stepId: string, generates: readonly string[], call: ToolCall, signal: AbortSignal): Promise<RestoredResult | undefined> {
    if (this.#off) return undefined;
    const fetched = await this.#options.store.fetch(hash, this.#gate(call, signal));
    if (fetched.kind === 'miss') return undefined;
    if (fetched.kind === 'failed') {
      this.#failed(stepId, 'reading', fetched.problem);
      return undefined;
    }
    try {
      const artifact = await unpackArtifact(fetched.body);
      const targets = await this.#checkTargets(artifact, generates, call, signal);
      for (const [index, file] of artifact.files.entries()) await writeRestored(await this.#resolvedAgain(targets[index]!), file);
      return { output: artifact.record.output, data: artifact.record.data, files: artifact.record.files };
    } catch (error) {
      // A write that failed part way (a full disk) leaves files the step's own run replaces.
      const what = error instanceof ToolError ? 'is refused' : 'could not be restored';
      this.#options.warn(`rho: step ${stepId}: the remote cache's artifact ${hash.slice(0, 12)} ${what}: ${(error as Error).message}; the step runs`);
      return undefined;
    }
  }

  /** Packs the step's generated files with its result and uploads them under `hash`, beside the run. */
  upload(hash: string, stepId: string, generated: readonly string[], call: ToolCall, result: CachedResult, signal: AbortSignal): void {
    if (this.#off || this.readOnly) return;
    const upload = this.#upload(hash, stepId, generated, call, result, signal)
      .catch((error: unknown) => this.#options.warn(`rho: step ${stepId}: its outputs were not uploaded to the remote cache (${(error as Error).message})`))
      .finally(() => this.#uploads.delete(upload));
    this.#uploads.add(upload);
  }

  /** Waits for the uploads still under way. */
  async settle(): Promise<void> {
    while (this.#uploads.size > 0) await Promise.all([...this.#uploads]);
  }

  async #upload(hash: string, stepId: string, generated: readonly string[], call: ToolCall, result: CachedResult, signal: AbortSignal): Promise<void> {
    let body: Buffer;
    try {
      const files = await Promise.all(generated.map((relative) => readGenerated(this.#options.workspace, relative)));
      const artifact: Artifact = { record: { format: cacheFormatVersion, output: result.output, data: result.data ?? null, files: [...generated] }, files };
      body = packArtifact(artifact);
    } catch (error) {
      this.#options.warn(`rho: step ${stepId}: its outputs were not uploaded to the remote cache (${(error as Error).message})`);
      return;
    }
    if (body.length > maxUploadBytes) {
      this.#options.warn(`rho: step ${stepId}: its outputs were not uploaded to the remote cache: packed, they are larger than ${maxUploadBytes} bytes`);
      return;
    }
    const problem = await this.#options.store.upload(hash, body, result.durationMs, this.#gate(call, signal));
    if (problem !== undefined) this.#failed(stepId, 'uploading', problem);
  }

  /** Every file goes where the step's generates: name, inside the workspace, through an allowed write; checked before any is written. */
  async #checkTargets(artifact: Artifact, generates: readonly string[], call: ToolCall, signal: AbortSignal): Promise<ResolvedPath[]> {
    const matchers = generates.map((glob) => compileGlob(glob));
    const targets: ResolvedPath[] = [];
    for (const file of artifact.files) {
      if (!matchers.some((matches) => matches(file.path))) throw new ArtifactRefused(`it holds ${JSON.stringify(file.path)}, which the step's generates: does not name`);
      const resolved = await this.#options.workspace.resolveForWrite(file.path);
      if (resolved.scope !== 'workspace') throw new ArtifactRefused(`${JSON.stringify(file.path)} resolves outside the workspace`);
      if (resolved.entry !== undefined && resolved.entry !== 'file') throw new ArtifactRefused(`${JSON.stringify(file.path)} is a ${resolved.entry} in the workspace, not a file`);
      const refusal = await this.#options.authorize(call, { class: 'write', path: resolved }, signal);
      if (refusal) throw refusal;
      targets.push(resolved);
    }
    return targets;
  }

  /**
   * A checked target resolved again just before it is written: a directory an earlier file of the
   * artifact created is now there; one that moved elsewhere since it was checked is refused.
   */
  async #resolvedAgain(checked: ResolvedPath): Promise<ResolvedPath> {
    const resolved = await this.#options.workspace.resolveForWrite(checked.requested);
    if (resolved.canonical !== checked.canonical) throw new ArtifactRefused(`${JSON.stringify(checked.requested)} resolves elsewhere than when it was checked`);
    return resolved;
  }

  /** A request to the cache is the step's, decided by the run's policy like any other. */
  #gate(call: ToolCall, signal: AbortSignal): RequestGate {
    return { signal, authorize: async (request) => (await this.#options.authorize(call, request, signal))?.message };
  }

  #failed(stepId: string, doing: string, { reason, lasting }: CacheProblem): void {
    if (this.#off) return;
    if (lasting) {
      this.#off = true;
      this.#options.warn(
        `rho: remote cache ${this.#options.store.place}: ${doing} failed: ${reason}; the rest of this run does without it, and every step runs as it would without a cache`,
      );
      return;
    }
    this.#options.warn(`rho: step ${stepId}: remote cache ${this.#options.store.place}: ${doing} failed: ${reason}; the step runs as it would without a cache`);
  }
}

async function readGenerated(workspace: Workspace, relative: string): Promise<ArtifactFile> {
  const resolved = await workspace.resolveForRead(relative);
  const info = await stat(resolved.canonical);
  if (!info.isFile()) throw new ToolError('path_refused', `${relative} is not a regular file`);
  if (info.size > maxArtifactBytes) throw new ToolError('unsupported', `${relative} is larger than ${maxArtifactBytes} bytes`);
  return { path: relative, bytes: await readFile(resolved.canonical), executable: (info.mode & 0o111) !== 0 };
}

/** Writes a restored file as any write does: through its checked directory, replacing it in one step. */
async function writeRestored(resolved: ResolvedPath, file: ArtifactFile): Promise<void> {
  const directory = await openTargetDirectory(resolved, file.path);
  try {
    const staged = await stageFile(directory, path.basename(resolved.canonical), file.bytes, file.executable ? 0o755 : 0o644);
    await staged.replace();
  } finally {
    await directory.close();
  }
}

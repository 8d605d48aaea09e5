import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { openSealed, sealText, type DigestKey } from '../../host/keyed-digest.js';

/** The state's file in a workspace's directory of rho's own (`PrivateStore.workspaceDirectory`). */
export const stateFileName = 'up-to-date.sealed';

/** A state file larger than this is not read (it is treated as unreadable). */
const maxStateBytes = 64 * 1024 * 1024;

/** A keyed digest (`src/host/keyed-digest.ts`). */
const digest = z.string().regex(/^[0-9a-f]{64}$/);

/** What a step's last successful run depended on and produced: keyed digests only, never contents or values. */
export const stepRecordSchema = z.strictObject({
  tool: z.string(),
  arguments: digest,
  /** Variable name → digest of its value. */
  env: z.record(z.string(), digest),
  /** Workspace-relative path → digest of its content. */
  sources: z.record(z.string(), digest),
  generates: z.record(z.string(), digest),
});
export type StepStateRecord = z.infer<typeof stepRecordSchema>;

export const stateSchema = z.strictObject({
  version: z.literal(2),
  /** Keyed by workflow file and step id (`stepKey`). */
  steps: z.record(z.string(), stepRecordSchema),
});
export type UpToDateState = z.infer<typeof stateSchema>;

/** A state as read: empty when there is none yet; `problem` says why an existing one was not usable. */
export interface LoadedState {
  state: UpToDateState;
  problem: string | undefined;
}

/** This run's changes to the records: a new record, or undefined for one that goes. */
export type StateChanges = ReadonlyMap<string, StepStateRecord | undefined>;

/**
 * Where one workspace's up-to-date records are kept between runs. The checks read them once
 * and write their changes as the run goes on; `place` names the store in messages.
 */
export interface StateStore {
  readonly place: string;
  load(): Promise<LoadedState>;
  save(changes: StateChanges): Promise<void>;
}

export function emptyState(): UpToDateState {
  return { version: 2, steps: {} };
}

/**
 * A workspace's records in one file of rho's own, sealed with the user's key for this
 * workspace: a file anyone else wrote or changed, or one copied from another workspace's, is
 * reported and treated as empty, never believed. The file is replaced whole by a rename in its
 * own directory, so a reader sees the old or the new state and never a mix; when two runs save
 * at once, the last rename wins.
 */
export class StateFile implements StateStore {
  readonly #purpose: string;

  constructor(
    readonly place: string,
    private readonly key: DigestKey,
    workspaceRoot: string,
  ) {
    this.#purpose = `rho up-to-date ${workspaceRoot}`;
  }

  async load(): Promise<LoadedState> {
    let text: string;
    try {
      const handle = await open(this.place, 'r');
      try {
        const { size } = await handle.stat();
        if (size > maxStateBytes) return { state: emptyState(), problem: `it is larger than ${maxStateBytes} bytes` };
        text = await handle.readFile('utf8');
      } finally {
        await handle.close();
      }
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return { state: emptyState(), problem: undefined };
      return { state: emptyState(), problem: (cause as Error).message };
    }
    const body = openSealed(this.key, this.#purpose, text);
    if (body === undefined) return { state: emptyState(), problem: 'it is not sealed with this user’s key for this workspace' };
    let raw: unknown;
    try {
      raw = JSON.parse(body);
    } catch {
      return { state: emptyState(), problem: 'it is not valid JSON' };
    }
    const parsed = stateSchema.safeParse(raw);
    if (!parsed.success) return { state: emptyState(), problem: 'it does not have the shape rho writes' };
    return { state: parsed.data, problem: undefined };
  }

  /**
   * Writes this run's changes over the state as it is on disk now: entries this run recorded
   * replace theirs, entries it dropped are removed, everything else another run wrote is kept.
   */
  async save(changes: StateChanges): Promise<void> {
    const current = await this.load();
    const steps: Record<string, StepStateRecord> = { ...current.state.steps };
    for (const [key, record] of changes) {
      if (record) steps[key] = record;
      else delete steps[key];
    }
    const next: UpToDateState = { version: 2, steps };
    const directory = path.dirname(this.place);
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const temporary = path.join(directory, `.${path.basename(this.place)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(sealText(this.key, this.#purpose, `${JSON.stringify(next)}\n`), 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, this.place);
    } catch (cause) {
      await rm(temporary, { force: true });
      throw cause;
    }
  }
}

/** A store that keeps nothing: where rho has no directory of its own, every step with sources runs. */
export const unkeptState: StateStore = {
  place: 'nowhere',
  load: () => Promise.resolve({ state: emptyState(), problem: undefined }),
  save: () => Promise.resolve(),
};

/** The state's key of one step: steps of different workflow files never share a record. */
export function stepKey(workflowFile: string, stepId: string): string {
  return `${workflowFile}#${stepId}`;
}

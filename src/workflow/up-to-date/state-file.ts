import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/** Where the up-to-date state lives, relative to the workspace root. */
export const stateFilePath = '.rho/up-to-date.json';

/** A state file larger than this is not read (it is treated as unreadable). */
const maxStateBytes = 64 * 1024 * 1024;

const digest = z.string().regex(/^[0-9a-f]{16,128}$/);

/** What a step's last successful run depended on and produced: digests only, never contents or values. */
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
  version: z.literal(1),
  /** Salt of the digests of secret values in this file. */
  salt: z.string().regex(/^[0-9a-f]{32}$/),
  /** Keyed by workflow file and step id (`stepKey`). */
  steps: z.record(z.string(), stepRecordSchema),
});
export type UpToDateState = z.infer<typeof stateSchema>;

/** A state as read: empty when there is none yet; `problem` says why an existing file was not usable. */
export interface LoadedState {
  state: UpToDateState;
  problem: string | undefined;
}

export function emptyState(): UpToDateState {
  return { version: 1, salt: randomBytes(16).toString('hex'), steps: {} };
}

/** Reads the state at `absolute`; a missing file is an empty state, an unreadable one is reported and treated as empty. */
export async function loadState(absolute: string): Promise<LoadedState> {
  let text: string;
  try {
    const handle = await open(absolute, 'r');
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
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    return { state: emptyState(), problem: 'it is not valid JSON' };
  }
  const parsed = stateSchema.safeParse(raw);
  if (!parsed.success) return { state: emptyState(), problem: 'it does not have the shape rho writes' };
  return { state: parsed.data, problem: undefined };
}

/**
 * Writes this run's changes over the state as it is on disk now: entries this run recorded
 * replace theirs, entries it dropped are removed, everything else another run wrote is kept.
 * The file is replaced whole by a rename in its own directory, so a reader sees the old or the
 * new state and never a mix; when two runs save at once, the last rename wins.
 */
export async function saveState(absolute: string, base: UpToDateState, changes: ReadonlyMap<string, StepStateRecord | undefined>): Promise<void> {
  const current = await loadState(absolute);
  // Entries written under another salt would never match this run's secret digests.
  const onDisk = current.problem === undefined && current.state.salt === base.salt ? current.state.steps : {};
  const steps: Record<string, StepStateRecord> = { ...onDisk };
  for (const [key, record] of changes) {
    if (record) steps[key] = record;
    else delete steps[key];
  }
  const next: UpToDateState = { version: 1, salt: base.salt, steps };
  const directory = path.dirname(absolute);
  await mkdir(directory, { recursive: true });
  const temporary = path.join(directory, `.${path.basename(absolute)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temporary, 'wx', 0o644);
    try {
      await handle.writeFile(`${JSON.stringify(next)}\n`, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, absolute);
  } catch (cause) {
    await rm(temporary, { force: true });
    throw cause;
  }
}

/** The state's key of one step: steps of different workflow files never share a record. */
export function stepKey(workflowFile: string, stepId: string): string {
  return `${workflowFile}#${stepId}`;
}


import type { ToolProgress } from './tool.js';

/** Longest progress message delivered; longer ones are cut (after masking, so no secret is split). */
export const maxProgressChars = 16 * 1024;

/**
 * A tool's progress reporter with its message bounded: each message is masked, then cut to
 * `maxProgressChars`. Progress is cosmetic, so it never throws into the tool.
 */
export function boundedProgress(emit: (update: ToolProgress) => void, redact: (text: string) => string): (update: ToolProgress) => void {
  return (update) => {
    if (typeof update?.message !== 'string') return;
    const masked = redact(update.message);
    const message = masked.length > maxProgressChars ? `${masked.slice(0, maxProgressChars)}…` : masked;
    emit(update.stream === 'stdout' || update.stream === 'stderr' ? { message, stream: update.stream } : { message });
  };
}

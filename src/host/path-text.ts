/** Longest path rho accepts from a tool argument. */
export const maxPathLength = 4096;

/**
 * Characters that display like `/`, `\` or `.` but are ordinary file-name characters. A path
 * such as `..∕..∕etc` would be shown to a person approving it as if it climbed out of the
 * workspace while naming something else, so such paths are refused outright.
 */
const lookAlikeSeparators = /[\u2024\u2044\u2215\u2216\u29f5\u29f8\u29f9\ufe52\ufe68\uff0e\uff0f\uff3c]/u;
/** Control characters can forge lines in logs and approval prompts. */
const controlCharacters = /[\u0001-\u001f\u007f-\u009f]/u;
/**
 * Invisible characters and direction overrides make a displayed path differ from the real one.
 * Joiners and directional marks that real names in some scripts use are left alone.
 */
const invisibleMarks = /[\u200b\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;

/** Why a requested path's text is unacceptable, or undefined when it is fine. */
export function pathTextProblem(text: string): string | undefined {
  if (text.length === 0) return 'empty path';
  if (text.length > maxPathLength) return `longer than ${maxPathLength} characters`;
  if (text.includes('\0')) return 'NUL byte in path';
  if (controlCharacters.test(text)) return 'control character in path';
  if (lookAlikeSeparators.test(text)) return 'a character that looks like a path separator or dot (use plain "/" and ".")';
  if (invisibleMarks.test(text)) return 'an invisible or text-direction character in path';
  return undefined;
}

const escapedInMessages = /[\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/gu;
const longestQuoted = 200;

/** A path quoted for a message: cut when very long, with invisible characters escaped. */
export function quotePath(text: string): string {
  const shown = text.length > longestQuoted ? `${text.slice(0, longestQuoted)}…` : text;
  return JSON.stringify(shown).replace(escapedInMessages, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

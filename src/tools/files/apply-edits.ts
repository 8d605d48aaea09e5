import { ToolError } from '../../host/errors.js';

export interface Edit {
  old: string;
  new: string;
  all?: boolean | undefined;
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

function editError(index: number, message: string): ToolError {
  return new ToolError('invalid_arguments', `edits.${index}.old: ${message}`, { details: { fields: [`edits.${index}.old`] } });
}

/**
 * Applies exact-text replacements in order, each to the result of the previous one. An `old`
 * that is missing, or found more than once without `all: true`, fails the whole edit.
 */
export function applyEdits(text: string, edits: readonly Edit[], shown: string): { text: string; replacements: number } {
  let current = text;
  let replacements = 0;
  edits.forEach((edit, index) => {
    const count = occurrences(current, edit.old);
    if (count === 0) throw editError(index, `not found in ${shown} (after the edits before it); copy the exact text, whitespace included`);
    if (count > 1 && !edit.all) {
      throw editError(index, `found ${count} times in ${shown}; add surrounding lines to make it unique, or set all: true to replace every one`);
    }
    if (edit.all) {
      current = current.split(edit.old).join(edit.new);
    } else {
      const at = current.indexOf(edit.old);
      current = current.slice(0, at) + edit.new + current.slice(at + edit.old.length);
    }
    replacements += count;
  });
  return { text: current, replacements };
}

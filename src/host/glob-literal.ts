/**
 * A glob that matches exactly this path and nothing else: every ASCII character that could be
 * glob syntax is escaped (a backslash as the class `[\\]`, which picomatch reads reliably);
 * letters, digits and `_ - . , : = %` stay as they are so common paths read naturally.
 */
export function globLiteral(rulePath: string): string {
  return rulePath.replace(/[^\w/.,:=%\u0080-\uffff-]/g, (character) => (character === '\\' ? '[\\\\]' : `\\${character}`));
}

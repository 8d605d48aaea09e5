/** A limit in milliseconds as a person writes it: `30s`, `1500ms`. */
export function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

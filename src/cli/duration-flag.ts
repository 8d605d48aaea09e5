import { HostError } from '../host/errors.js';
import { parseDuration } from '../workflow/duration.js';

/** A `--timeout`-style flag's duration (`500ms`, `90s`, `5m`, `1h`) in milliseconds; a usage error names the flag. */
export function parseDurationFlag(flag: string, text: string): number {
  try {
    return parseDuration(text);
  } catch (error) {
    throw new HostError('usage', `${flag}: ${(error as Error).message}`, { cause: error });
  }
}

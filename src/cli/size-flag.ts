import { HostError } from '../host/errors.js';

const units: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** A size flag's value in bytes: `10MiB`, `500kb`, `1048576`; `none` for no limit (Infinity). A usage error names the flag. */
export function parseSizeFlag(flag: string, text: string): number {
  if (/^(none|unlimited)$/i.test(text.trim())) return Infinity;
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = match ? units[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) {
    throw new HostError('usage', `${flag}: "${text}" is not a size; write bytes with a unit (10MiB, 500KB, 1GiB) or none for no limit`);
  }
  return Math.floor(Number(match[1]) * unit);
}

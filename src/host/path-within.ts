import path from 'node:path';

/** Whether `candidate` is `root` or lies under it, component-wise (`/a/bc` is not under `/a/b`). */
export function isWithin(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

import type { BuildOptions } from 'esbuild';

/** esbuild options for a runtime bundle; `options` adds the entry points and output. */
export function runtimeBundleOptions(root: string, options: BuildOptions): BuildOptions;

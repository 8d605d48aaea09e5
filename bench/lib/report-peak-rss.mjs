// Loaded with `node --import` into a measured process: writes its peak resident set size (KiB)
// to $RHO_BENCH_RSS_FILE when it exits, however it exits.
import { writeFileSync } from 'node:fs';

const file = process.env.RHO_BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));

/**
 * oclif sorts a plugin's commands with `localeCompare`, and the first `localeCompare` of a
 * process builds ICU's collator: 5–8 ms of every start, a tenth of rho's own start-up. rho's
 * help sorts commands again by code unit, and rho's command ids sort alike both ways
 * (test/commands/index.test.ts), so the bundle sorts them by code unit. The build fails if oclif
 * no longer has the line, so an upgrade cannot drop this silently.
 */
import { readFile } from 'node:fs/promises';

const sortByLocale = '.sort((a, b) => a.id.localeCompare(b.id));';
const sortByCodeUnit = '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));';

export const oclifPluginSort = {
  name: 'oclif-plugin-sort',
  setup(bundler) {
    bundler.onLoad({ filter: /[\\/]@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      if (source.split(sortByLocale).length !== 2) throw new Error(`${path}: expected one "${sortByLocale}" to replace (scripts/oclif-plugin-sort.mjs)`);
      return { contents: source.replace(sortByLocale, sortByCodeUnit), loader: 'js' };
    });
  },
};

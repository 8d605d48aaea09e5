import type { ConfinementBackend } from './backend.js';
import { bubblewrapBackend } from './bubblewrap/index.js';

/**
 * The confinement backends rho knows, in the order a run tries those that run on its system: a
 * new backend is a folder beside `bubblewrap/` and one entry here.
 */
export const confinementBackends: readonly ConfinementBackend[] = [bubblewrapBackend];

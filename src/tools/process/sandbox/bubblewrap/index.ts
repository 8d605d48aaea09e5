import type { ConfinementBackend } from '../backend.js';
import { launchBubblewrap } from './launch.js';
import { bubblewrapSetting, probeBubblewrap } from './probe.js';
import { shareBubblewrapNetwork } from './shared-network.js';

/**
 * Confinement with bubblewrap (`bwrap`, what Flatpak uses): namespaces, read-only binds of the
 * host, and a seccomp filter, on Linux.
 */
export const bubblewrapBackend: ConfinementBackend = {
  name: 'bubblewrap',
  platforms: ['linux'],
  settings: [bubblewrapSetting],
  relocationFix: `install bubblewrap in a system directory, or set ${bubblewrapSetting} to one outside the workspace and the granted roots`,
  probe: probeBubblewrap,
  launch: launchBubblewrap,
  shareNetwork: shareBubblewrapNetwork,
};

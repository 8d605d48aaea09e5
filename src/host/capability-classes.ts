import type { CapabilityClass } from './capability.js';

/** Every capability class, in the order rho lists them. */
export const capabilityClasses: readonly CapabilityClass[] = [
  'read',
  'write',
  'process',
  'shell',
  'network',
  'network_tool',
  'skill',
  'instructions',
];

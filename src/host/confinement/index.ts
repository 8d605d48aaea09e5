export {
  choosePrivateTemp,
  existingHomes,
  planConfinement,
  networkConfinement,
  unixSocketConfinement,
  outermost,
  type ConfinementPlan,
  type ConfinementInput,
  type ConfinementScope,
  type FoundToolchain,
  type NetworkConfinement,
  type WritableRoot,
} from './plan.js';
export { resolveConfinementPlan, type ResolvedPlan } from './resolve.js';
export { cacheLayouts, cacheNames, toolchainLayouts, toolchainVariables, type CacheName } from './toolchains.js';
export { narrowWritable } from './narrow.js';
export { sandboxModes, sandboxStatusSchema, describeUnconfined, type SandboxMode, type SandboxStatus } from './status.js';
export type {
  AuthorizeConnection,
  CallConfinement,
  NetworkProxy,
  ProxyConnection,
  ProxyEndpoint,
  ProxyRoute,
  SandboxChannel,
  SandboxCommand,
  ShareNetwork,
  SharedNetwork,
} from './call.js';
export { hookConfinementPlan, type HookConfinementInput } from './hook-plan.js';
export { guardedDirectory, guardedDirectories, type GuardedDirectory } from './guarded-directory.js';
export { protectedPlaces, type ProtectedPath, type ProtectedPlace } from './protected-paths.js';

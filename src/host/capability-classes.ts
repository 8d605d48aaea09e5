/** Every capability class, in the order rho lists them. */
export const capabilityClasses = ['read', 'write', 'process', 'shell', 'network', 'network_tool', 'skill', 'instructions'] as const;

export type CapabilityClass = (typeof capabilityClasses)[number];

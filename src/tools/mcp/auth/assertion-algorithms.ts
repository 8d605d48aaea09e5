/** The algorithms a `private_key_jwt` client assertion may be signed with: asymmetric keys only. */
export const assertionAlgorithms = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'] as const;
export const defaultAssertionAlgorithm = 'RS256';

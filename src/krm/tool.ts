/** The two executables the KRM bundle serves. */
export type Tool = 'render-valkey' | 'validate-valkey';

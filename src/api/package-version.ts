import manifest from '../../package.json' with { type: 'json' };

/** The release, as package.json says (the bundler inlines it, so dist/ does not read package.json). */
export const PACKAGE_VERSION: string = manifest.version;

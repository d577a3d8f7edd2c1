import type * as Yaml from 'yaml';

/** Defined (true) by scripts/build.mjs in the KRM bundle, where `yaml` ships as lib/yaml.cjs. */
declare const __KRM_BUNDLE__: boolean | undefined;

let lib: typeof Yaml | undefined;

/**
 * The `yaml` package, loaded on first use. A ResourceList in plain block style never needs it
 * (fast-yaml.ts reads those), and leaving it out of the KRM function's start-up saves a few
 * milliseconds on every run. In the bundle it is a file of its own next to krm.cjs, which the
 * launcher loads with a code cache of its own.
 */
export function yamlLib(): typeof Yaml {
  if (!lib) {
    lib =
      typeof __KRM_BUNDLE__ !== 'undefined'
        ? (require('./yaml.cjs') as typeof Yaml)
        : ((process.getBuiltinModule('node:module') as typeof import('node:module')).createRequire(import.meta.url)('yaml') as typeof Yaml);
  }
  return lib;
}

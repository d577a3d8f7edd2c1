// The Go YAML oracle (scripts/yaml-oracle): how go-yaml v2 (kubectl) and v3 (kpt, kustomize) read
// YAML documents. Built into the tools cache by scripts/build-yaml-oracle.sh on first use.
import { execFileSync } from 'node:child_process';

/** A value as the oracle prints it, Go types kept. */
export type GoValue =
  | null
  | boolean
  | string
  | { int: string }
  | { float: string }
  | { seq: GoValue[] }
  | { map: Array<[GoValue, GoValue]> }
  | { other: string };

export interface GoRead {
  value?: GoValue;
  error?: string;
}

let oracle: string | undefined;

/** The oracle's path, building it when missing. */
export function yamlOracle(): string {
  if (oracle === undefined) {
    const env = execFileSync('bash', ['scripts/build-yaml-oracle.sh', '--print-env'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    oracle = /^YAML_ORACLE=(.*)$/m.exec(env)?.[1];
    if (!oracle) throw new Error(`build-yaml-oracle.sh printed no YAML_ORACLE: ${env}`);
  }
  return oracle;
}

/** Each document as go-yaml v2 and v3 read it. */
export function readWithGo(docs: readonly string[]): Array<{ v2: GoRead; v3: GoRead }> {
  const out = execFileSync(yamlOracle(), { input: JSON.stringify(docs), maxBuffer: 2 ** 30, encoding: 'utf8' });
  return JSON.parse(out) as Array<{ v2: GoRead; v3: GoRead }>;
}

/**
 * A key that is not a string as sigs.k8s.io/yaml (kubectl) turns it into a JSON key: booleans and
 * numbers by their text. Others (null, collections) have no JSON key: an error.
 */
function kubectlKey(k: GoValue): string {
  if (typeof k === 'boolean') return String(k);
  if (k !== null && typeof k === 'object' && 'int' in k) return k.int;
  if (k !== null && typeof k === 'object' && 'float' in k) return String(Number(k.float.replace('Inf', 'Infinity')));
  throw new Error(`a mapping key kubectl cannot turn into JSON: ${JSON.stringify(k)}`);
}

/**
 * The JavaScript value a Go value stands for (numbers lose the int/float distinction, as they do
 * in JSON). Keys become strings as kubectl makes them; `__proto__` stays a plain key.
 */
export function goToJs(v: GoValue): unknown {
  if (v === null || typeof v !== 'object') return v;
  if ('int' in v) return Number(v.int);
  if ('float' in v) return Number(v.float.replace('Inf', 'Infinity'));
  if ('seq' in v) return v.seq.map(goToJs);
  if ('map' in v) {
    const out: Record<string, unknown> = {};
    for (const [k, e] of v.map) {
      const name = typeof k === 'string' ? k : kubectlKey(k);
      Object.defineProperty(out, name, { value: goToJs(e), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  throw new Error(`a Go value the oracle could not print: ${v.other}`);
}

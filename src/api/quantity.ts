/** Kubernetes resource quantities (the subset of `resource.Quantity` syntax the API server accepts). */
export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';
const QUANTITY = new RegExp(QUANTITY_PATTERN);
/** Container requests and limits: the same syntax without a minus sign (the API server rejects negative resources). */
export const RESOURCE_QUANTITY_PATTERN = QUANTITY_PATTERN.replace('^(\\+|-)?', '^\\+?');

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** The value of a quantity in base units (bytes for memory, cores for cpu); undefined if malformed. */
export function quantityValue(q: string | number): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  // A menu has a few sizes that thousands of clusters share: each is read once.
  let value = quantities.get(q);
  if (value === undefined && !quantities.has(q)) {
    value = readQuantity(q);
    if (quantities.size < 10_000) quantities.set(q, value);
  }
  return value;
}

const quantities = new Map<string, number | undefined>();

function readQuantity(q: string): number | undefined {
  if (!QUANTITY.test(q)) return undefined;
  const m = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(.*)$/.exec(q);
  if (!m) return undefined;
  const num = Number(m[1]);
  const suffix = m[2] ?? '';
  if (suffix in BINARY) return num * (BINARY[suffix] as number);
  if (suffix in DECIMAL) return num * (DECIMAL[suffix] as number);
  if (/^[eE]/.test(suffix)) return num * 10 ** Number(suffix.slice(1));
  return undefined;
}

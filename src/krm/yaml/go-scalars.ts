/**
 * Plain (unquoted) scalars resolved exactly as go-yaml v2 does when it decodes into an
 * `interface{}`: the reader kubectl uses through sigs.k8s.io/yaml, so the values the function reads
 * are the values kubectl applies. go-yaml v3 (kyaml: kpt, kustomize) differs on `yes`/`no`/`on`/
 * `off`/`y`/`n`, which it reads as strings; those bytes pass through unchanged whatever we read,
 * and what reaches the cluster is what kubectl reads, so v2 is the reference.
 *
 * The rules, from go-yaml v2.4.0 resolve.go: a fixed table of nulls, booleans, infinities and NaN;
 * otherwise only a scalar that starts with a digit, a sign or a dot may be a number. `.`-led text is
 * Go's ParseFloat of the text as is. Digit- and sign-led text loses its underscores and is then
 * Go's ParseInt with base 0 (`0x`, `0o`, `0b` and a leading `0` for octal), ParseUint, or, if it
 * looks like a YAML float, Go's ParseFloat. Anything that fails all of these, out-of-range numbers
 * included, stays a string. Timestamps are read as strings by v2 too. The oracle test
 * (test/krm/yaml-oracle.integration.test.ts) checks this against go-yaml itself.
 */

const TABLE = new Map<string, unknown>([
  ['', null],
  ['~', null],
  ['null', null],
  ['Null', null],
  ['NULL', null],
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'true', 'True', 'TRUE'].map((s): [string, unknown] => [s, true]),
  ...['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'false', 'False', 'FALSE'].map((s): [string, unknown] => [s, false]),
  ...['.nan', '.NaN', '.NAN'].map((s): [string, unknown] => [s, Number.NaN]),
  ...['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'].map((s): [string, unknown] => [s, Number.POSITIVE_INFINITY]),
  ...['-.inf', '-.Inf', '-.INF'].map((s): [string, unknown] => [s, Number.NEGATIVE_INFINITY]),
]);

const YAML_STYLE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
// Go's decimal float literal, underscores only between digits (strconv.underscoreOK).
const GO_DECIMAL_FLOAT = /^[-+]?(?:[0-9](?:_?[0-9])*(?:\.(?:[0-9](?:_?[0-9])*)?)?|\.[0-9](?:_?[0-9])*)(?:[eE][-+]?[0-9](?:_?[0-9])*)?$/;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const DIGITS: Record<number, RegExp> = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ };
const PREFIX: Record<number, string> = { 2: '0b', 8: '0o', 10: '', 16: '0x' };

/** Go's strconv.ParseInt(s, 0, 64) (signed) or ParseUint(s, 0, 64) (unsigned) on text without underscores. */
function goParseInteger(s: string, signed: boolean): bigint | undefined {
  let body = s;
  let negative = false;
  if (signed && (body[0] === '+' || body[0] === '-')) {
    negative = body[0] === '-';
    body = body.slice(1);
  }
  if (body === '') return undefined;
  let base = 10;
  if (body[0] === '0') {
    const p = body.length >= 3 ? (body[1] as string).toLowerCase() : '';
    base = p === 'b' ? 2 : p === 'o' ? 8 : p === 'x' ? 16 : 8;
    body = body.slice(p === 'b' || p === 'o' || p === 'x' ? 2 : 1);
    if (body === '') return 0n; // "0"
  }
  if (!(DIGITS[base] as RegExp).test(body)) return undefined;
  const magnitude = BigInt(`${PREFIX[base]}${body}`);
  const value = negative ? -magnitude : magnitude;
  if (signed ? value < INT64_MIN || value > INT64_MAX : value > UINT64_MAX) return undefined;
  return value;
}

/** Go's strconv.ParseFloat(s, 64) for decimal text: undefined on a syntax error or overflow. */
function goParseFloat(s: string): number | undefined {
  if (!GO_DECIMAL_FLOAT.test(s)) return undefined;
  const value = Number.parseFloat(s.replace(/_/g, ''));
  return Number.isFinite(value) ? value : undefined;
}

/** The value go-yaml v2 gives a plain scalar decoded into `interface{}`. */
export function resolveGoYamlScalar(source: string): unknown {
  const fixed = TABLE.get(source);
  if (fixed !== undefined || TABLE.has(source)) return fixed;
  const c = source.charCodeAt(0);
  if (c === 46 /* . */) return goParseFloat(source) ?? source;
  const digitOrSign = (c >= 48 && c <= 57) || c === 43 /* + */ || c === 45; /* - */
  if (!digitOrSign) return source;
  const plain = source.includes('_') ? source.replace(/_/g, '') : source;
  const integer = goParseInteger(plain, true) ?? goParseInteger(plain, false);
  if (integer !== undefined) return Number(integer);
  if (YAML_STYLE_FLOAT.test(plain)) {
    const value = goParseFloat(plain);
    if (value !== undefined) return value;
  }
  return source;
}

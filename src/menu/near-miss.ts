import { API_VERSION, GROUP, RENDER_CONFIG_KIND, error, type Problem } from '../api/index.js';
import { VALKEY_KINDS } from './menu.js';
import { objectRefOf } from './parse.js';
import { closestName } from './suggest.js';

const OUR_KINDS: readonly string[] = [...VALKEY_KINDS, RENDER_CONFIG_KIND];
const byLowercase = new Map(OUR_KINDS.map((k) => [k.toLowerCase(), k]));
/** A group this close to ours is a typo of it, not someone else's API. */
const GROUP_DISTANCE = 3;
const KIND_DISTANCE = 2;

/** One of our kinds, however cased or slightly misspelled, or undefined. */
function ourKindNear(kind: string): string | undefined {
  const lower = kind.toLowerCase();
  const close = closestName(lower, byLowercase.keys(), KIND_DISTANCE);
  return close === undefined ? undefined : byLowercase.get(close);
}

/**
 * An object that is not one of ours but was surely meant to be: our group with a kind we do not
 * have, or one of our kinds (however misspelled) under a misspelled group or no group at all. It
 * would pass through untouched while what it should render silently disappears, so it is an error.
 */
export function nearMissOfOurs(value: unknown): Problem | undefined {
  const ref = objectRefOf(value);
  const slash = ref.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  const who = `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
  const consequence = 'as written it passes through untouched and valkey-krm does not read it';
  if (group === GROUP) {
    if (OUR_KINDS.includes(ref.kind)) return undefined;
    const kind = ourKindNear(ref.kind);
    const hint = kind ? `did you mean "${kind}"?` : `the kinds are ${OUR_KINDS.join(', ')}`;
    return error(`${who}: kind: "${ref.kind}" is not a kind of ${GROUP}; ${hint} (${consequence})`, ref, 'kind');
  }
  const kind = ourKindNear(ref.kind);
  if (kind === undefined) return undefined;
  const groupIsNear = group !== '' && closestName(group.toLowerCase(), [GROUP], GROUP_DISTANCE) !== undefined;
  if (!groupIsNear && group !== '') return undefined;
  const kindHint = kind === ref.kind ? '' : ` and kind "${kind}"`;
  return error(
    `${who}: apiVersion: "${ref.apiVersion}" is not valkey-krm's API; did you mean "${API_VERSION}"${kindHint}? (${consequence})`,
    ref,
    'apiVersion',
  );
}

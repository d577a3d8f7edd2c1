import { error, securitySettingReason, valkeyRef, warning, type Problem, type ValkeyConfig } from '../api/index.js';
import {
  addedAfterFloor,
  canonicalSettingName,
  isNewerThan,
  knownSettingNames,
  lookupSetting,
  type SettingFacts,
} from '../api/valkey-table.js';
import { settingValueRefusal } from '../api/setting-values.js';
import { closestName, typoDistance } from './suggest.js';
import type { MergedChain } from './resolve.js';

/**
 * Settings that change who can connect (securitySettingReason) are errors: dropping them would leave
 * the author believing in a password or TLS option the cluster does not have.
 *
 * What Valkey would refuse at start-up, found at render time instead: a name it does not know
 * ("Bad directive") or a value outside an enum. Either crash-loops every cluster on the config,
 * so a near miss is an error with the fix; a name far from every known one is only a warning, as
 * it may be a module's or a newer release's setting the tables do not cover.
 */
export function checkValkeySettings(config: ValkeyConfig): Problem[] {
  const map = config.spec.valkey;
  if (!map) return [];
  const ref = valkeyRef('ValkeyConfig', config.metadata.name);
  const who = `ValkeyConfig ${config.metadata.name}`;
  const problems: Problem[] = [];
  const spelledAs = new Map<string, string>();
  for (const key of Object.keys(map).sort()) {
    const field = `spec.valkey.${key}`;
    const canonical = canonicalSettingName(key);
    const earlier = spelledAs.get(canonical);
    if (earlier !== undefined) {
      const why =
        earlier.toLowerCase() === key.toLowerCase() ? 'Valkey reads setting names case-insensitively' : `Valkey reads both as ${canonical}`;
      problems.push(
        error(
          `${who}: ${field}: sets the same setting as "${earlier}" (${why}), so one value would silently win; keep one of the two`,
          ref,
          field,
        ),
      );
      continue;
    }
    spelledAs.set(canonical, key);
    const security = securitySettingReason(canonical);
    if (security !== undefined) {
      problems.push(
        error(
          `${who}: ${field}: refused: ${canonical} changes who can connect to the cluster or how (${security}); valkey-krm never drops it silently, so remove it from the config`,
          ref,
          field,
        ),
      );
      continue;
    }
    const known = lookupSetting(key);
    if (!known) {
      problems.push(unknownSetting(who, field, key, ref));
      continue;
    }
    if (known.facts.removedAfter) {
      problems.push(
        warning(
          `${who}: ${field}: Valkey ${known.facts.removedAfter} knows "${key}" but Valkey 9.1.2 refuses it at start-up ("Bad directive"); remove it`,
          ref,
          field,
        ),
      );
      continue;
    }
    if (known.facts.ignoredBy) {
      problems.push(
        warning(
          `${who}: ${field}: "${key}" does nothing on Valkey ${known.facts.ignoredBy}, which reads it as a deprecated setting and ignores it (CONFIG SET refuses it, so a change to it restarts the pods for nothing); remove it`,
          ref,
          field,
        ),
      );
      continue;
    }
    if (known.name === 'cluster-databases' && (map[key] as string).trim() !== '1') {
      problems.push(
        error(
          `${who}: ${field}: more than one database in cluster mode is not supported yet: valkey-krm does not render database ACL selectors (db=, alldbs) for its users and its slot migration is tested on database 0 only, so keys in other databases could be left behind when shards change; remove it (or set "1")`,
          ref,
          field,
        ),
      );
      continue;
    }
    const value = map[key] as string;
    const bad = badValue(value, known.facts);
    if (bad) {
      const allowed = (known.facts.values ?? []).join(', ');
      const hint = bad.suggestion ? `did you mean "${bad.suggestion}"? Use` : 'use';
      const several = known.facts.multi ? 'one or more of' : 'one of';
      problems.push(
        error(
          `${who}: ${field}: "${bad.word}" is not a value Valkey accepts for ${known.name}; ${hint} ${several}: ${allowed}. As written, every pod of every cluster on this config fails to start`,
          ref,
          field,
        ),
      );
      continue;
    }
    const refused = settingValueRefusal(known.name, value, known.facts);
    if (refused) {
      problems.push(
        error(
          `${who}: ${field}: ${JSON.stringify(value)} is not a value Valkey 9.1.2 accepts for ${known.name}: ${refused.why}; it takes ${refused.accepted}. As written, every pod of every cluster on this config fails to start`,
          ref,
          field,
        ),
      );
    }
  }
  return problems;
}

function unknownSetting(who: string, field: string, key: string, ref: ReturnType<typeof valkeyRef>): Problem {
  const lower = key.toLowerCase();
  const close = closestName(lower, knownSettingNames(), typoDistance(lower));
  if (close !== undefined) {
    return error(
      `${who}: ${field}: not a Valkey setting; did you mean "${close}"? As written, Valkey refuses to start ("Bad directive") on every cluster using this config`,
      ref,
      field,
    );
  }
  return warning(
    `${who}: ${field}: not a setting of Valkey 9.1.2 or 8.0.1; if a module or a newer release provides it, make sure the image has it, otherwise Valkey refuses to start ("Bad directive")`,
    ref,
    field,
  );
}

/**
 * The first word of `value` a bool or enum setting would refuse, with the allowed value nearest to
 * it. Quoted values are left alone: Valkey unquotes them, and guessing how is not worth it.
 */
function badValue(value: string, facts: SettingFacts): { word: string; suggestion?: string } | undefined {
  const allowed = facts.values;
  if (!allowed || /["']/.test(value)) return undefined;
  const words = facts.multi ? value.trim().split(/\s+/) : [value.trim()];
  for (const word of words) {
    if (allowed.some((v) => v === word.toLowerCase())) continue;
    const suggestion = closestName(word.toLowerCase(), allowed, typoDistance(word));
    return suggestion === undefined ? { word } : { word, suggestion };
  }
  return undefined;
}

/**
 * Settings the image's declared version does not have yet (9.1 added them; the image declares
 * 9.0.x): that server refuses the line at start-up, so every pod of every cluster on the config
 * would crash-loop. Reported on the config in the chain that set the setting.
 */
export function checkSettingsForImage(resolved: MergedChain & { name: string; imageRef: string; imageVersion: string }): Problem[] {
  const problems: Problem[] = [];
  for (const key of Object.keys(resolved.valkey).sort()) {
    const known = lookupSetting(key);
    if (!known || !isNewerThan(known.facts, resolved.imageVersion)) continue;
    const from = resolved.valkeyFrom[key] ?? resolved.name;
    const field = `spec.valkey.${key}`;
    const via = from === resolved.name ? '' : ` (the image of ValkeyConfig ${resolved.name})`;
    const added = addedAfterFloor(known.facts);
    problems.push(
      error(
        `ValkeyConfig ${from}: ${field}: ${known.name} needs Valkey ${added} or later, but ValkeyImage ${resolved.imageRef}${via} declares ${resolved.imageVersion}, which refuses it at start-up ("Bad directive"), so every pod on it would fail to start; use an image of Valkey ${added} or later, or remove the setting`,
        valkeyRef('ValkeyConfig', from),
        field,
      ),
    );
  }
  return problems;
}

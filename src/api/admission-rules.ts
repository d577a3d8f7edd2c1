import type { CelRule } from './common.js';
import { SECURITY_PREFIXES, SECURITY_SETTINGS } from './managed-settings.js';
import { canonicalSettingName, hasSubcommands, knownCommandNames, knownSettingNames, lookupSetting } from './valkey-table.js';

/**
 * The CEL rules the generated CRDs carry so that the API server refuses what render-valkey refuses,
 * built from the same tables (valkey-table.ts) and lists (managed-settings.ts) the function reads.
 * Only exact checks are here: a near-miss name (`maxmemory-polcy`, `flushal`) is an error in the
 * function only, because telling a typo from a module's or a newer release's name takes an edit
 * distance to every known name, which CEL cannot compute within the API server's cost limits
 * (docs/admission.md lists what only the function checks, and why).
 */

/** A CEL string literal of a table name (they are all lowercase letters, digits, '-' and '|'). */
function literal(s: string): string {
  if (!/^[a-z0-9|._-]*$/.test(s)) throw new Error(`not a plain table name: ${JSON.stringify(s)}`);
  return `'${s}'`;
}
const list = (items: readonly string[]): string => `[${items.map(literal).join(', ')}]`;
const mapOfLists = (entries: readonly (readonly [string, readonly string[]])[]): string =>
  `{${entries.map(([k, v]) => `${literal(k)}: ${list(v)}`).join(', ')}}`;

/** Every spelling (aliases included, lowercase) of the settings that change who can connect, except the tls-* family. */
function securityNames(): string[] {
  const names = new Set(Object.keys(SECURITY_SETTINGS));
  for (const n of knownSettingNames()) if (Object.hasOwn(SECURITY_SETTINGS, canonicalSettingName(n))) names.add(n);
  return [...names].sort();
}

/** Per spelling of a bool or enum setting (lowercase), the values Valkey accepts; `multi` ones take several. */
function enumSettings(multi: boolean): [string, readonly string[]][] {
  const out: [string, readonly string[]][] = [];
  for (const n of knownSettingNames()) {
    const facts = lookupSetting(n)?.facts;
    if (!facts?.values || facts.removedAfter || Boolean(facts.multi) !== multi) continue;
    out.push([n, facts.values]);
  }
  return out;
}

/** The CEL rules of a ValkeyConfig's `spec.valkey` map (self: map of name to value). */
export function valkeySettingsAdmissionRules(): CelRule[] {
  const sec = list(securityNames());
  const prefixes = SECURITY_PREFIXES.map((p) => `k.lowerAscii().startsWith(${literal(p)})`).join(' || ');
  const refused = `(k.lowerAscii() in ${sec} || ${prefixes})`;
  // Quoted values are left to Valkey's own unquoting, as in the function (menu/check-settings.ts).
  const quoted = `(self[k].contains('"') || self[k].contains("'"))`;
  const single = mapOfLists(enumSettings(false));
  const several = mapOfLists(enumSettings(true));
  const badSingle = `(k.lowerAscii() in E && !${quoted} && !(self[k].trim().lowerAscii() in E[k.lowerAscii()]))`;
  const badMulti = `(k.lowerAscii() in M && !${quoted} && self[k].trim().split(' ').exists(w, w != '' && !(w.lowerAscii() in M[k.lowerAscii()])))`;
  const withTables = (expr: string) => `cel.bind(E, ${single}, cel.bind(M, ${several}, ${expr}))`;
  return [
    {
      rule: `self.all(k, !${refused})`,
      messageExpression: `'refused: ' + self.filter(k, ${refused}).map(k, 'spec.valkey.' + k).join(', ') + ' would change who can connect to the cluster or how; access comes from the ACL bindings (spec.acl) and TLS from the ValkeyCluster spec.tls.secretRef, and valkey-krm writes those directives itself: remove it'`,
      message:
        'a setting that changes who can connect (requirepass, masterauth, aclfile, user, tls-*, include, rename-command...) is refused',
      reason: 'FieldValueForbidden',
    },
    {
      rule: withTables(`self.all(k, !${badSingle} && !${badMulti})`),
      messageExpression: withTables(
        `self.filter(k, ${badSingle} || ${badMulti}).map(k, 'spec.valkey.' + k + ': "' + self[k] + '" is not a value Valkey accepts for ' + k.lowerAscii() + '; use ' + (k.lowerAscii() in E ? 'one of: ' + E[k.lowerAscii()].join(', ') : 'one or more of: ' + M[k.lowerAscii()].join(', '))).join('; ') + ' (as written, the pods do not start)'`,
      ),
      message: 'a value Valkey does not accept for a bool or enum setting',
    },
  ];
}

/** The CEL rules of one ValkeyRole `spec.commands[]` item (self: {name, access}). */
export function roleCommandAdmissionRules(): CelRule[] {
  const names = knownCommandNames();
  const parents = [...new Set(names.filter((n) => n.includes('|')).map((n) => n.split('|')[0] as string))].sort();
  const subcommands = names.filter((n) => n.includes('|'));
  const plain = names.filter((n) => !n.includes('|') && !hasSubcommands(n));
  const parent = `self.name.lowerAscii().split('|')[0]`;
  return [
    {
      rule: `!self.name.contains('|') || !(${parent} in ${list(parents)}) || self.name.lowerAscii() in ${list(subcommands)}`,
      messageExpression: `'"' + self.name + '": ' + ${parent} + ' has no such subcommand; Valkey rejects the whole ACL file and does not start'`,
      message: 'not a subcommand of that command',
      fieldPath: '.name',
    },
    {
      rule: `!(self.access == 'deny' && self.name.contains('|') && ${parent} in ${list(plain)})`,
      messageExpression: `'"' + self.name + '": Valkey cannot deny ' + ${parent} + ' for one first argument (it has no subcommands); deny "' + ${parent} + '" or allow only what is needed'`,
      message: 'a command without subcommands cannot be denied for one first argument',
      fieldPath: '.name',
    },
  ];
}

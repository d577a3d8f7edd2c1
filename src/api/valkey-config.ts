import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { celRules, keysMatchRule, kindObject, quantity, refName, type CelRule } from './common.js';
import { aclBindings } from './acl.js';
import { valkeyArgsError } from './valkey-args.js';
import { SECURITY_PREFIXES, securitySettingSpellings } from './managed-settings.js';
import { generatedValkeySettingAliases } from './valkey-settings.js';
import { settingValueRules } from './setting-value-rules.js';

/** Valkey directive names: what `CONFIG GET` accepts, lowercase letters, digits and dashes. */
export const VALKEY_KEY_PATTERN = '^[A-Za-z][A-Za-z0-9-]*$';
export const VALKEY_KEY = new RegExp(VALKEY_KEY_PATTERN);
const VALKEY_KEY_MESSAGE = 'each key must be a Valkey directive name such as maxmemory-policy';
export const MAX_VALKEY_SETTINGS = 256;
/**
 * A setting's value: no line break (it would inject another directive) nor any control character
 * but tab, which separates arguments (a NUL cuts the line short in Valkey's reader).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what this pattern is about
export const VALKEY_VALUE = /^[^\x00-\x08\x0a-\x1f\x7f]*$/;

/**
 * The admission twin of menu/check-settings.ts's refusal of settings that decide who can connect
 * or how (managed-settings.ts): any spelling, any case. The function names the reason per setting;
 * the API server names the key.
 */
function securitySettingsRule(): CelRule {
  const names = `[${securitySettingSpellings(generatedValkeySettingAliases())
    .map((n) => `'${n}'`)
    .join(', ')}]`;
  const refused = (k: string) =>
    `(${k}.lowerAscii() in ${names} || ${SECURITY_PREFIXES.map((p) => `${k}.lowerAscii().startsWith('${p}')`).join(' || ')})`;
  const message =
    'must not set requirepass, masterauth/primaryauth, masteruser/primaryuser, aclfile, user, include, rename-command or any tls-* setting: valkey-krm sets who can connect and how (ACL bindings in spec.acl, TLS in the ValkeyCluster spec.tls)';
  return {
    rule: `self.all(k, !${refused('k')})`,
    message,
    messageExpression: `'must not set ' + self.filter(k, ${refused('k')})[0] + ': it decides who can connect or how, which valkey-krm sets itself (ACL bindings in spec.acl, TLS in the ValkeyCluster spec.tls); remove it'`,
  };
}

export const valkeySettings = lazy(() =>
  z
    .record(
      z.string().check(z.maxLength(128, { error: VALKEY_KEY_MESSAGE }), z.regex(VALKEY_KEY, { error: VALKEY_KEY_MESSAGE })),
      z.string({ error: 'each value must be a string; quote numbers and booleans in YAML, e.g. "5"' }).check(
        z.maxLength(4096),
        z.regex(VALKEY_VALUE, {
          error: 'a value may not contain a line break (it would inject another directive) or a control character such as NUL or ESC',
        }),
        // Quotes must balance as Valkey splits the line, or the pods do not start.
        z.superRefine((value, ctx) => {
          // A control character is the pattern's finding above; say it once.
          // biome-ignore lint/suspicious/noControlCharactersInRegex: the same class as the pattern above
          const why = /[\x00-\x08\x0a-\x1f\x7f]/.test(value) ? undefined : valkeyArgsError(value);
          if (why) ctx.addIssue({ code: 'custom', message: `${why}; Valkey would refuse the line and not start` });
        }),
      ),
    )
    .check(
      z.refine((map) => Object.keys(map).length <= MAX_VALKEY_SETTINGS, { error: `must have at most ${MAX_VALKEY_SETTINGS} settings` }),
      z.meta({
        description: 'Valkey settings, merged per key down the baseRef chain. Forced settings always win.',
        maxProperties: MAX_VALKEY_SETTINGS,
        ...celRules(keysMatchRule(VALKEY_KEY_PATTERN, VALKEY_KEY_MESSAGE), securitySettingsRule(), ...settingValueRules()),
      }),
    ),
);

export const valkeyConfigSpec = lazy(() =>
  z.strictObject({
    baseRef: z.optional(refName('ValkeyConfig')).check(z.meta({ description: 'The config this one derives from.' })),
    imageRef: z
      .optional(refName('ValkeyImage'))
      .check(z.meta({ description: 'The ValkeyImage to run; may be inherited through baseRef.' })),
    resources: z.optional(
      z.strictObject({
        cpu: z.optional(quantity()).check(z.meta({ description: 'CPU request and limit of the valkey container.' })),
        memory: z.optional(quantity()).check(z.meta({ description: 'Memory request and limit of the valkey container.' })),
      }),
    ),
    valkey: z.optional(valkeySettings()),
    acl: z
      .optional(aclBindings())
      .check(z.meta({ description: 'Platform ACL bindings. The first config in the chain that sets acl supplies the whole list.' })),
  }),
);

export const valkeyConfig = lazy(() => kindObject('ValkeyConfig', valkeyConfigSpec()));

export type ValkeyConfig = z.infer<ReturnType<typeof valkeyConfig>>;
export type ValkeyConfigSpec = z.infer<ReturnType<typeof valkeyConfigSpec>>;
export type Quantity = string | number;

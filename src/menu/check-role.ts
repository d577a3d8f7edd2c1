import { error, valkeyRef, warning, type Problem, type ValkeyRole } from '../api/index.js';
import { hasSubcommands, knownAclCategoryNames, knownCommandNames, lookupAclCategory, lookupCommand } from '../api/valkey-table.js';
import { closestName, typoDistance } from './suggest.js';

/** Why a wrong name matters: Valkey loads the ACL file all or nothing. */
const CONSEQUENCE = 'Valkey rejects the whole ACL file on an unknown name and does not start, on every cluster that binds this role';
const FAR = 'if it comes from a module or a release newer than 9.0, make sure every image that uses this role has it; otherwise';

/**
 * Commands and ACL categories are closed sets per Valkey release (generated from the real servers,
 * plus what 9.0 added). A near miss is an error with the fix; a name far from all is a warning,
 * since modules add commands and categories of their own.
 */
export function checkRoleNames(role: ValkeyRole): Problem[] {
  const ref = valkeyRef('ValkeyRole', role.metadata.name);
  const who = `ValkeyRole ${role.metadata.name}`;
  const problems: Problem[] = [];
  (role.spec.categories ?? []).forEach((c, i) => {
    if (lookupAclCategory(c.name)) return;
    const field = `spec.categories[${i}].name`;
    const close = closestName(c.name.toLowerCase(), knownAclCategoryNames(), typoDistance(c.name));
    problems.push(
      close !== undefined
        ? error(`${who}: ${field}: "${c.name}" is not an ACL category; did you mean "${close}"? ${CONSEQUENCE}`, ref, field)
        : warning(
            `${who}: ${field}: "${c.name}" is not an ACL category Valkey knows (${knownAclCategoryNames().join(', ')}); ${FAR} ${CONSEQUENCE}`,
            ref,
            field,
          ),
    );
  });
  (role.spec.commands ?? []).forEach((c, i) => {
    const field = `spec.commands[${i}].name`;
    const problem = commandProblem(c.name, c.access, `${who}: ${field}`);
    if (problem) problems.push(problem.severity === 'error' ? error(problem.message, ref, field) : warning(problem.message, ref, field));
  });
  return problems;
}

type Finding = Pick<Problem, 'severity' | 'message'>;

function commandProblem(name: string, access: 'allow' | 'deny', where: string): Finding | undefined {
  const lower = name.toLowerCase();
  if (lookupCommand(lower)) return undefined;
  const [parent = '', sub] = lower.split('|');
  if (sub !== undefined && lookupCommand(parent) && !hasSubcommands(parent)) {
    // `+get|x` allows a command for one first argument (deprecated, still accepted); Valkey refuses
    // the same form to deny.
    return access === 'allow'
      ? undefined
      : error(
          `${where}: "${name}": Valkey cannot deny ${parent} for one first argument (it has no subcommands); deny "${parent}" or allow only what is needed. ${CONSEQUENCE}`,
        );
  }
  const candidates =
    sub !== undefined && lookupCommand(parent) ? knownCommandNames().filter((n) => n.startsWith(`${parent}|`)) : knownCommandNames();
  const close = closestName(lower, candidates, typoDistance(sub ?? lower));
  if (close !== undefined) return error(`${where}: "${name}" is not a Valkey command; did you mean "${close}"? ${CONSEQUENCE}`);
  if (sub !== undefined && lookupCommand(parent)) {
    const subs = candidates.map((n) => n.slice(parent.length + 1)).join(', ');
    return error(`${where}: "${name}": ${parent} has no subcommand "${sub}" (it has: ${subs}). ${CONSEQUENCE}`);
  }
  return warning(`${where}: "${name}" is not a command Valkey knows; ${FAR} ${CONSEQUENCE}`);
}

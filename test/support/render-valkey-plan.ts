// `render-valkey plan ...` for tests, until cli.ts dispatches `plan` itself: the CI script's
// RENDER_VALKEY points here (through tsx), so the script runs against the source tree.
import { runPlanCommand } from '../../src/krm/plan-command.js';

const [command, ...args] = process.argv.slice(2);
if (command !== 'plan') {
  process.stderr.write('test render-valkey: only the plan command is wired here\n');
  process.exit(2);
}
const out = runPlanCommand(args, { cwd: process.cwd() });
process.stdout.write(out.stdout);
process.stderr.write(out.stderr);
process.exitCode = out.exitCode;

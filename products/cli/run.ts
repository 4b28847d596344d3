/**
 * The `cachette` command: `cachette proxy …`, `cachette bridge …`, `--help`, `--version`.
 * Kept apart from the bin script so that tests run it in process, with their own output and
 * environment.
 */
import { bridgeCommand } from '../bridge/cli.ts';
import { proxyCommand } from '../proxy/cli.ts';
import { UsageError, type CliIo, type Command, type Started } from '../shared/command.ts';
import { packageVersion } from './version.ts';

const COMMANDS: readonly Command[] = [proxyCommand, bridgeCommand];

/** The text of `cachette --help`. */
export const HELP = `Usage: cachette <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(8)} ${c.summary}`).join('\n')}

Run \`cachette <command> --help\` for its options; \`cachette --version\` prints the version.`;

/**
 * Runs the command line `args` (without the node and script paths): an exit code when it is
 * done at once, or the server a subcommand started.
 */
export async function runCli(args: readonly string[], io: CliIo): Promise<number | Started> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.err : io.out)(HELP);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    io.out(packageVersion());
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.err(`cachette: unknown command ${JSON.stringify(name)}\n\n${HELP}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.help);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`cachette ${command.name}: ${error.message}\nRun \`cachette ${command.name} --help\` for the options.`);
    return 2;
  }
}

// `mac agent` as its help shows it: arguments, flags, defaults. What it does is in ../commands/agent.ts,
// loaded when the command runs.
import type { RegisterCommand } from '../context.js';
import type { AgentFlags } from '../commands/agent.js';

/** `mac agent`: runs a private location's checks from this machine until SIGINT/SIGTERM. */
export const register: RegisterCommand = (program, ctx) => {
  program
    .command('agent')
    .description("run the checks of a private location from this machine: asks a mac serve for the location's due runs (outbound HTTP only) and reports their results")
    .option('--api-url <url>', 'URL of the service (mac serve), e.g. https://monitoring.example.com (default: MAC_API_URL)')
    .option('--key <key>', 'the private-location key (pl_...) the agent runs with (default: MAC_AGENT_KEY; prefer --key-file or the environment: a flag shows in the process list)')
    .option('--key-file <file>', 'file holding the private-location key')
    .option('--concurrency <n>', 'runs at once', '4')
    .option('--stop-grace <seconds>', 'on SIGTERM, how long runs under way may finish before their claims are given back', '20')
    .option('--unsafe-scripts', "run multi-step and setup/teardown scripts as the agent's own user when the bubblewrap sandbox is not available (by default they are refused then)")
    .action(async (flags: AgentFlags) => (await import('../commands/agent.js')).run(ctx, flags));
};

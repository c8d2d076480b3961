import { createInterface } from 'node:readline/promises';
import { runCli } from './cli';
import { ExitCode } from './exit-codes';
import type { CliIo } from './io';

const io: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  isTty: process.stdout.isTTY === true,
  columns: process.stdout.columns,
  stdinIsTty: process.stdin.isTTY === true,
  async ask(question) {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await rl.question(question);
    } catch {
      return undefined;
    } finally {
      rl.close();
    }
  },
  async readStdin() {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  // The CLI is a client: its own wall clock only renders "5s ago"; nothing is decided by it.
  // eslint-disable-next-line no-restricted-properties
  now: () => Date.now(),
};

// Ctrl-C during a watch or a bulk operation: stop quietly with the shell's code for SIGINT.
process.once('SIGINT', () => process.exit(ExitCode.interrupted));
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  // `drover runs ls | head` closes the pipe early: not a failure worth a stack.
  if (err.code === 'EPIPE') process.exit(ExitCode.ok);
  throw err;
});

void runCli(process.argv.slice(2), io).then((code) => {
  process.exitCode = code;
  // Whatever a command left open (a keep-alive socket) must not hold the terminal.
  setTimeout(() => process.exit(code), 200).unref();
});

import './compile-cache';
import { createInterface } from 'node:readline/promises';
import { runCli } from './cli';
import { ExitCode } from './exit-codes';
import type { CliIo } from './io';
import { SHOW_CURSOR } from './output/live-block';

const io: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  isTty: process.stdout.isTTY === true,
  columns: process.stdout.columns,
  stdinIsTty: process.stdin.isTTY === true,
  async ask(question) {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    // On a terminal readline reads Ctrl-C as a key, not a signal: without this it would close the
    // question and read as "no answer" (exit 1) instead of an interruption (130).
    rl.on('SIGINT', interrupted);
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

/**
 * Ctrl-C during a watch, a bulk operation or a question: stop quietly with the shell's code for
 * SIGINT. The terminal echoed `^C` after whatever was on the cursor's row (a live block's last
 * row, a progress bar, the question): end that row, or the shell's next output runs into it.
 */
function interrupted(): never {
  if (process.stderr.isTTY) process.stderr.write('\n');
  else if (process.stdout.isTTY) process.stdout.write('\n');
  // A live block hides the cursor while it redraws: the shell gets it back.
  if (process.stdout.isTTY) process.stdout.write(SHOW_CURSOR);
  process.exit(ExitCode.interrupted);
}

process.once('SIGINT', interrupted);
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  // `drover runs ls | head` closes the pipe early: not a failure worth a stack.
  if (err.code === 'EPIPE') process.exit(ExitCode.ok);
  throw err;
});

/** Resolves once everything written to `stream` so far has been handed to the OS. */
const flushed = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write('', () => resolve()));

void runCli(process.argv.slice(2), io).then(async (code) => {
  process.exitCode = code;
  // Whatever a command left open must not hold the terminal: the HTTP agent keeps its connection to
  // the api alive for the next request, which never comes, and the process would wait for it. Exit as
  // soon as the output is out (the timer, in case a stream never reports back).
  setTimeout(() => process.exit(code), 200).unref();
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
});

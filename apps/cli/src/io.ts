/** What the CLI touches of its process, so tests can run it in-process with their own. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** stdout is a terminal: tables fit its width, colours and live views are on. */
  isTty: boolean;
  /** The terminal's width when `isTty`. */
  columns?: number;
  /** stdin is a terminal: prompts may ask. */
  stdinIsTty: boolean;
  /** One line typed by the user (for confirmations); undefined when stdin closed. */
  ask(question: string): Promise<string | undefined>;
  /** All of stdin, for `-` file arguments (optional: only commands that read files need it). */
  readStdin?(): Promise<string>;
  /** Epoch ms; injected so relative times are testable. */
  now(): number;
}

/**
 * What `drover` exits with. Scripts may rely on these (docs/cli.md); 0 only on success.
 */
export const ExitCode = {
  ok: 0,
  /** The operation failed: the API refused it, a watched run did not succeed, a file is invalid. */
  failed: 1,
  /** Bad command line: unknown command or option, a missing or malformed argument. */
  usage: 2,
  /** The API could not be reached (connection refused, unknown host, timeout). */
  unreachable: 3,
  /** The API refused the token (401) or its role (403). */
  unauthorized: 4,
  /** The routine, run, queue or operation does not exist (404). */
  notFound: 5,
  /** Interrupted (Ctrl-C), as shells report SIGINT. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

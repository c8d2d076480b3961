/** Boot-time error: two providers declare a handler for the same job type. */
export class DuplicateHandlerError extends Error {
  constructor(
    readonly jobType: string,
    readonly handlers: string[],
  ) {
    super(
      `job type "${jobType}" has ${handlers.length} handlers (${handlers.join(', ')}); a job type needs exactly one`,
    );
    this.name = 'DuplicateHandlerError';
  }
}

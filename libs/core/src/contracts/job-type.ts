/** The longest job type name: a routine's `jobType`, a contract's and an enqueue's share it. */
export const MAX_JOB_TYPE_LENGTH = 200;

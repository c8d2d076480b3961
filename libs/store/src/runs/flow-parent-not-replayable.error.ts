import { DroverError } from '@drover/core';

/**
 * Thrown when a replay names a flow's parent parked because a child failed: replayed alone it
 * would run without its children (a replay is a new run, outside any flow), so nothing is made.
 */
export class FlowParentNotReplayableError extends DroverError {
  get code() {
    return 'flow-parent-not-replayable' as const;
  }

  constructor(
    readonly id: string,
    readonly child: string | undefined,
  ) {
    super(
      `run ${id} was parked because its child run ${child ?? '(unknown)'} failed; a replay would run it without its ` +
        'children: replay or fix the child, then enqueue the flow again (or purge the parent)',
    );
    this.name = 'FlowParentNotReplayableError';
  }
}

/**
 * Runs `step` every `ms` through `serial` (the leader's one-at-a-time queue). A step still queued or
 * running is not queued again, and a step whose run took d ms waits 9·d more before the next: at 100k
 * routines a pass reads every routine (seconds of CPU), and passes back to back would leave the
 * scheduler no time for its fires, so each step's share stays under a tenth. d is the step's own
 * run, not its wait behind other steps in `serial`: a long reconcile must not hold the next write of
 * schedules left for later back for nine times its length. Answers the timer (unref'd).
 */
export function pacedStep(
  ms: number,
  serial: (run: () => Promise<void>) => Promise<void>,
  step: () => Promise<void>,
  now: () => number = () => performance.now(),
): NodeJS.Timeout {
  let pending = false;
  let notBefore = 0;
  const t = setInterval(() => {
    if (pending || now() < notBefore) return;
    pending = true;
    void serial(async () => {
      const start = now();
      try {
        await step();
      } finally {
        const end = now();
        notBefore = end + 9 * (end - start);
      }
    }).finally(() => (pending = false));
  }, ms);
  t.unref();
  return t;
}

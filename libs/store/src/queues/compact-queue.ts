import { Job, Queue, type JobJson } from 'bullmq';

/**
 * A job stored without `opts.jobId`. BullMQ copies the job id into the options it stores, so a
 * run's id was held three times by its job (its key, its wait-list entry, its options); the key
 * already names it and readers take the id from there (`Job.fromJSON`). That copy was a sixth of
 * a queued run's bytes. BullMQ's check of a custom id (not an integer, no `:` but its own) reads
 * the stored options, so it no longer runs: run ids are minted by the run maker, which never
 * makes such an id.
 */
export class CompactJob extends Job {
  override asJSON(): JobJson {
    const json = super.asJSON();
    if (json.opts?.jobId !== undefined) {
      const { jobId: _id, ...opts } = json.opts;
      json.opts = opts;
    }
    return json;
  }
}

/** A BullMQ Queue whose adds store {@link CompactJob}s (`Queue.add` and `addBulk` create jobs through `Job`). */
export class CompactQueue extends Queue {
  protected override get Job(): typeof Job {
    // Job's generic construct signature cannot be restated by a subclass; the instances are Jobs.
    return CompactJob as unknown as typeof Job;
  }
}

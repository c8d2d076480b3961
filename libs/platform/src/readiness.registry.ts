import { Injectable } from '@nestjs/common';

/** A readiness check: resolves when ready, throws (with the reason) when not. */
export type ReadinessCheck = () => Promise<void> | void;

/**
 * Roles contribute their own readiness conditions (a worker: "consuming its queues"); the
 * platform adds Redis reachability. Draining flips readiness off so load balancers stop routing.
 */
@Injectable()
export class ReadinessRegistry {
  private readonly checks = new Map<string, ReadinessCheck>();
  private draining = false;

  register(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  markDraining(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  entries(): [string, ReadinessCheck][] {
    return [...this.checks.entries()];
  }
}

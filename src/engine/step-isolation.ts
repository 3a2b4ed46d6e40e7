import { BehaviorSubject, distinctUntilChanged, type Observable } from 'rxjs';
import { StepAbortedError } from './step-runner.js';

/**
 * Suspects run alone. A job whose step has ended with its process before is a suspect, and so is
 * every job that was in flight beside it in that process: the next attempt of a suspect runs
 * with no other job step in this process, so a process it takes down takes no bystander with it
 * and only the culprit's count of interrupted attempts grows (issue 32: without this, jobs that
 * happened to run beside a poison job were failed as poison with it).
 *
 * While a suspect waits for the steps under way to end, or runs, `isolating$` is true: the
 * engine pauses its job consumers (they take nothing), and a job step that would start meanwhile
 * (one handed over from the step before) is handed back instead (StepAbortedError; its attempt
 * marked so), not left waiting in a process the suspect may end. Suspects run one at a time.
 * This costs a pause of the process's job steps, only after a crash, only in the process that
 * took the suspect.
 */
export class StepIsolation {
  private sharing = 0;
  private alone = false;
  /** Suspects waiting for their turn, first come first served. */
  private readonly suspects: (() => void)[] = [];
  private readonly isolating = new BehaviorSubject(false);
  /** True while a suspect waits or runs. */
  readonly isolating$: Observable<boolean> = this.isolating.pipe(distinctUntilChanged());

  /** Runs `step`, alone when `suspect`, else beside other ordinary steps (or hands it back, see above). */
  async run<T>(suspect: boolean, step: () => Promise<T>): Promise<T> {
    if (!suspect) {
      if (this.isolating.value)
        throw new StepAbortedError(new Error('handed back: a suspect job runs alone in this process'));
      this.sharing++;
      try {
        return await step();
      } finally {
        this.sharing--;
        this.admit();
      }
    }
    await this.turn();
    try {
      return await step();
    } finally {
      this.alone = false;
      this.admit();
    }
  }

  /** Steps running now. */
  get running(): number {
    return this.alone ? 1 : this.sharing;
  }

  private turn(): Promise<void> {
    this.isolating.next(true);
    return new Promise((resolve) => {
      this.suspects.push(() => {
        this.alone = true;
        resolve();
      });
      this.admit();
    });
  }

  /** Starts the next suspect once nothing runs; says isolation is over once none is left. */
  private admit(): void {
    if (this.alone || this.sharing > 0) return;
    const next = this.suspects.shift();
    if (next) next();
    else this.isolating.next(false);
  }
}

import type { JobLifecycle } from './job.lifecycle.js';
import type { MerrittService } from './states.js';

/**
 * How the engine shares the tree (merritt-protocols.md, "The big picture"): `standalone` serves
 * every state; `merritt` leaves the states its table gives a Merritt service to that service.
 */
export type Deployment = 'standalone' | 'merritt';

/** A state a Merritt deployment leaves to one of Merritt's services. */
export interface LeftToMerritt {
  state: string;
  service: MerrittService;
}

/** The job states a deployment serves and the ones it leaves to Merritt, read from the table. */
export interface DeploymentStates {
  deployment: Deployment;
  /** States this engine consumes: the servable ones, less those left to Merritt, narrowed by a request. */
  served: readonly string[];
  /** In table order; empty when standalone. */
  leftToMerritt: readonly LeftToMerritt[];
  /** Requested states the deployment leaves to Merritt: a request that cannot be met. */
  refused: readonly LeftToMerritt[];
}

/** The states of `lifecycle` whose row names a Merritt service (storing, recording). */
export function merrittServiceStates(lifecycle: Pick<JobLifecycle, 'table'>): LeftToMerritt[] {
  return lifecycle.table.flatMap((row) => (row.merritt ? [{ state: row.state, service: row.merritt }] : []));
}

/**
 * What a process of `deployment` serves: every servable state standalone; in Merritt, those
 * whose row names no Merritt service. `requested` (`mrtq serve --states`) narrows it further;
 * a requested state left to Merritt is `refused`, not served.
 */
export function deploymentStates(
  lifecycle: Pick<JobLifecycle, 'table' | 'servableStates'>,
  deployment: Deployment,
  requested?: readonly string[],
): DeploymentStates {
  const leftToMerritt = deployment === 'merritt' ? merrittServiceStates(lifecycle) : [];
  const left = new Set(leftToMerritt.map((entry) => entry.state));
  const wanted = requested ?? lifecycle.servableStates;
  return {
    deployment,
    served: wanted.filter((state) => !left.has(state)),
    leftToMerritt,
    refused: leftToMerritt.filter((entry) => requested?.includes(entry.state)),
  };
}

import type { JobLifecycle } from './job.lifecycle.js';
import type { MerrittService, StateRow } from './states.js';

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

/** An access queue a Merritt deployment leaves to one of Merritt's services. */
export interface AccessLeftToMerritt<Q extends string = string> {
  queue: Q;
  service: MerrittService;
}

/** The access queues a process serves and the ones it leaves to Merritt. */
export interface DeploymentAccess<Q extends string = string> {
  /** Queues this engine consumes. */
  served: readonly Q[];
  /** Queues left to Merritt's service that consumes access requests; empty when standalone or asked for. */
  leftToMerritt: readonly AccessLeftToMerritt<Q>[];
}

/**
 * The Merritt service that consumes access requests: the one the access table's rows name
 * (mrt-store's `Consumer`, merritt-protocols.md §7), undefined when none does.
 */
export function accessMerrittService(table: readonly StateRow[]): MerrittService | undefined {
  return table.find((row) => row.merritt !== undefined)?.merritt;
}

/**
 * Which access queues a process of `deployment` serves: every one standalone; in Merritt none,
 * as storing and recording, when the access table gives them to a Merritt service (mrt-store is
 * the access consumer there). `requested` (`mrtq serve --access`) says which to serve: in Merritt
 * mode that opts in, the others staying Merritt's.
 */
export function deploymentAccess<Q extends string>(
  table: readonly StateRow[],
  queues: readonly Q[],
  deployment: Deployment,
  requested?: readonly Q[],
): DeploymentAccess<Q> {
  const service = deployment === 'merritt' ? accessMerrittService(table) : undefined;
  const served = requested ?? (service ? [] : queues);
  const leftToMerritt = service
    ? queues.filter((queue) => !served.includes(queue)).map((queue) => ({ queue, service }))
    : [];
  return { served: queues.filter((queue) => served.includes(queue)), leftToMerritt };
}

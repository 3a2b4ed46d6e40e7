import type { AnyActorRef, AnyMachineSnapshot, Snapshot } from 'xstate';

/**
 * Whether the state's invoked step is still running. A step can settle without moving the
 * item (provisioning on `space.short`, processing on `expand.done`); an engine that runs one
 * step per lock uses this to tell "still working" from "done here, release the lock".
 */
export function hasRunningStep(snapshot: AnyMachineSnapshot): boolean {
  const children = Object.values(snapshot.children as Record<string, AnyActorRef | undefined>);
  return children.some(
    (child) => (child?.getSnapshot() as Snapshot<unknown> | undefined)?.status === 'active',
  );
}

import type { Attributes, Context } from '@opentelemetry/api';
import type { EventObject } from 'xstate';
import { Attr } from '../../telemetry/attributes.js';
import { markFailed, withSpan } from '../../telemetry/span.js';
import type { EngineDeps } from '../deps.js';
import {
  commitItem,
  stepItem,
  type CommitAttempt,
  type ItemKind,
  type ItemStatus,
} from './step-and-commit.js';
import type { HeldLock } from '../../queue/locks/lock.js';

/** An item as a consumer acquired it: its record, and the lock this session holds on it. */
export type HeldItem = { lock: HeldLock };

/** The commit of one event: the item as it is committed from, and each attempt at the write. */
export interface ItemCommit<H, R> {
  held: H;
  attempt: () => CommitAttempt<R>;
}

/** The step of an item's state, as a descriptor prepares it for the runner. */
export interface ItemStep<H, R, E extends EventObject> {
  /** The step's span (a step continues the trace its item was created in: `parent`). */
  span: { name: string; attributes: Attributes; parent?: Context };
  /** Runs the step through the item's machine; resolves with the event the machine derived. */
  run(): Promise<E>;
  /** Span attributes the event adds (an expansion's job count). */
  attributesOf?(event: E): Attributes;
  /** How the event is committed, with what the step left to write. */
  commit(event: E): ItemCommit<H, R>;
  /** After the commit (undefined when nothing was committed): clean-up, metrics, looking again. */
  after?(event: E, next: R | undefined): Promise<void> | void;
}

/**
 * One kind of item work (a job, a batch's expansion or report, an access request), as data: the
 * runner does the same acquire → take → step → commit for each, so a new kind of item is a new
 * descriptor, never a new script.
 */
export interface ItemDescriptor<
  H extends HeldItem,
  R extends ItemStatus,
  E extends EventObject,
> extends ItemKind<H, R> {
  /**
   * The event that takes a waiting item into work, committed before any step (a pending batch:
   * acquired, or held when its collection is on hold); `ends` when the item's work here ends
   * with it. Undefined when the item is already in work. `signal` is the item's work's (a job
   * handed over by its take carries it to its next state's step).
   */
  take?(
    deps: EngineDeps,
    held: H,
    signal: AbortSignal,
  ): { event: E; ends: boolean; commit: ItemCommit<H, R> } | undefined;
  /** The item held with the record a commit left. */
  with(held: H, record: R): H;
  /** The step the item's state runs. */
  step(deps: EngineDeps, held: H, signal: AbortSignal): ItemStep<H, R, E> | Promise<ItemStep<H, R, E>>;
}

/**
 * Runs an acquired item: its take (if it waits), then its state's step through its machine, then
 * the commit of the event the machine derived, each through the transaction core (stepItem,
 * commitItem: stall guard, ledger, settling of unknown outcomes, lock release). Resolves with the
 * item after its last commit, or undefined when nothing was committed.
 */
export async function runItem<H extends HeldItem, R extends ItemStatus, E extends EventObject>(
  deps: EngineDeps,
  item: ItemDescriptor<H, R, E>,
  acquired: H,
  signal: AbortSignal,
): Promise<R | undefined> {
  let held = acquired;
  const take = item.take?.(deps, held, signal);
  if (take) {
    const taken = await commitItem(deps, item, take.commit.held, take.event, take.commit.attempt);
    if (!taken || take.ends) return taken;
    held = item.with(held, taken);
  }
  const step = await item.step(deps, held, signal);
  const { name, attributes, parent } = step.span;
  return withSpan(
    name,
    attributes,
    async (span) => {
      const stepped = await stepItem(deps, item, held, () => step.run());
      if (!stepped.ran) {
        markFailed(span, stepped.reason === 'stalled' ? 'lock lost while stalled' : 'aborted');
        return undefined;
      }
      const event = stepped.value;
      span.setAttributes({ [Attr.event]: event.type, ...step.attributesOf?.(event) });
      if ('message' in event && event.type.endsWith('.failed'))
        markFailed(span, typeof event.message === 'string' ? event.message : event.type);
      const commit = step.commit(event);
      const next = await commitItem(deps, item, commit.held, event, commit.attempt);
      if (next) span.setAttribute(Attr.stateTo, next.status);
      await step.after?.(event, next);
      return next;
    },
    { parent },
  );
}

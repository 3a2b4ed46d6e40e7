/** How a state is coloured, in the diagrams and in the browser's badges. */
export type StateCategory = 'wait' | 'work' | 'ok' | 'bad' | 'gone';

/** How a state is coloured: waiting, working, done, failed or gone. */
export function stateCategory(state: string): StateCategory {
  if (state === 'pending' || state === 'held') return 'wait';
  if (state === 'completed') return 'ok';
  if (state === 'failed') return 'bad';
  if (state === 'deleted') return 'gone';
  return 'work';
}

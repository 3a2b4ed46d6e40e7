import { describe, expect, it } from 'vitest';
import { BatchStatuses, JobLocations } from '../../../src/streams/transition-tracker.js';

const STATES = ['pending', 'estimating', 'completed'];

function synced(listings: Record<string, string[]>): JobLocations {
  const tracker = new JobLocations(STATES);
  for (const state of STATES) expect(tracker.update(state, listings[state] ?? [])).toEqual([]);
  expect(tracker.synced).toBe(true);
  return tracker;
}

describe('JobLocations', () => {
  it('reports nothing until every folder was listed once', () => {
    const tracker = new JobLocations(STATES);
    expect(tracker.update('pending', ['jid1'])).toEqual([]);
    expect(tracker.update('estimating', ['jid1'])).toEqual([]);
    expect(tracker.synced).toBe(false);
    expect(tracker.update('completed', [])).toEqual([]);
    expect(tracker.synced).toBe(true);
  });

  it('reports a move whichever listing arrives first', () => {
    const tracker = synced({ pending: ['jid1', 'jid2'] });
    // jid1: the new folder is listed before the old one shows it gone.
    expect(tracker.update('estimating', ['jid1'])).toEqual([
      { id: 'jid1', from: 'pending', to: 'estimating' },
    ]);
    expect(tracker.update('pending', ['jid2'])).toEqual([]);
    // jid2: the old folder is listed first.
    expect(tracker.update('pending', [])).toEqual([]);
    expect(tracker.update('estimating', ['jid1', 'jid2'])).toEqual([
      { id: 'jid2', from: 'pending', to: 'estimating' },
    ]);
  });

  it('reports a new job from null, and merged moves as one (A → C)', () => {
    const tracker = synced({});
    expect(tracker.update('pending', ['jid7'])).toEqual([{ id: 'jid7', from: null, to: 'pending' }]);
    expect(tracker.update('pending', [])).toEqual([]);
    expect(tracker.update('completed', ['jid7'])).toEqual([{ id: 'jid7', from: 'pending', to: 'completed' }]);
  });

  it('forgets the oldest departed jobs beyond its bound (jobs removed by cleanup never reappear)', () => {
    const tracker = new JobLocations(['completed', 'failed'], 2);
    tracker.update('completed', ['jid1', 'jid2', 'jid3']);
    tracker.update('failed', []);
    tracker.update('completed', []);
    expect(tracker.update('failed', ['jid1', 'jid3'])).toEqual([
      { id: 'jid1', from: null, to: 'failed' },
      { id: 'jid3', from: 'completed', to: 'failed' },
    ]);
  });
});

describe('BatchStatuses', () => {
  it('takes the batches of the first listing as baseline and reports later changes', () => {
    const tracker = new BatchStatuses();
    expect(tracker.listed(['bid1', 'bid2'], new Set())).toEqual({ added: ['bid1', 'bid2'], removed: [] });
    expect(tracker.read('bid1', 'processing')).toBeUndefined();
    expect(tracker.synced).toBe(false);
    expect(tracker.read('bid2', 'completed')).toBeUndefined();
    expect(tracker.synced).toBe(true);
    expect(tracker.read('bid1', 'processing')).toBeUndefined();
    expect(tracker.read('bid1', 'reporting')).toEqual({ id: 'bid1', from: 'processing', to: 'reporting' });
  });

  it('reports a batch created later from null, also when its status appears after its id node', () => {
    const tracker = new BatchStatuses();
    tracker.listed([], new Set());
    expect(tracker.synced).toBe(true);
    expect(tracker.listed(['bid3'], new Set())).toEqual({ added: ['bid3'], removed: [] });
    expect(tracker.read('bid3', undefined)).toBeUndefined();
    expect(tracker.read('bid3', 'pending')).toEqual({ id: 'bid3', from: null, to: 'pending' });
    expect(tracker.read('bid3', undefined)).toBeUndefined();
    expect(tracker.read('bid3', 'held')).toEqual({ id: 'bid3', from: 'pending', to: 'held' });
  });

  it('stops watching removed batches, and an unread removed batch no longer blocks the sync', () => {
    const tracker = new BatchStatuses();
    tracker.listed(['bid1', 'bid2'], new Set());
    tracker.read('bid1', 'completed');
    expect(tracker.listed(['bid1'], new Set(['bid1', 'bid2']))).toEqual({ added: [], removed: ['bid2'] });
    expect(tracker.synced).toBe(true);
  });
});

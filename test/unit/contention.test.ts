import { describe, expect, it } from 'vitest';
import { contentionOf } from '../support/contention.js';

describe('MRTQ_CONTENTION', () => {
  it('is a number of busy processes; unset or empty is none; anything else is refused', () => {
    expect(contentionOf({})).toBe(0);
    expect(contentionOf({ MRTQ_CONTENTION: '' })).toBe(0);
    expect(contentionOf({ MRTQ_CONTENTION: '2' })).toBe(2);
    for (const bad of ['two', '-1', '1.5', '65'])
      expect(() => contentionOf({ MRTQ_CONTENTION: bad })).toThrow('MRTQ_CONTENTION must be');
  });
});

import { describe, expect, it } from 'vitest';
import { joinLocalIds, splitLocalIds } from '../../../src/steps/formats/local-ids.js';
import { applyProducerErc, parseProducerErc } from '../../../src/steps/formats/producer-erc.js';

describe("the depositor's mrt-erc.txt, read as mrt-ingest reads it", () => {
  it('reads who, what, when; a where with an ark is the primary id, another where the local ids', () => {
    const erc = parseProducerErc(
      'erc:\r\nwho: Doe, Jane\r\nwhat: A title: with a colon\r\nwhen: 2024\r\nwhere: ark:/13030/m5abc\r\nwhere: local-1; local-2\r\n',
    );
    expect(erc).toEqual({
      who: 'Doe, Jane',
      what: 'A title: with a colon',
      when: '2024',
      primary: 'ark:/13030/m5abc',
      local: 'local-1; local-2',
    });
  });

  it('skips (:unas), empty values, other keys and continuation lines; a later where replaces an earlier one', () => {
    const erc = parseProducerErc(
      'erc:\nwho: (:unas)\nwhat:\nhow: no\n  folded line\nwhere: first\nwhere: second\nwhere: (:unas)\n',
    );
    expect(erc).toEqual({ local: 'second' });
  });

  it("overrides the form's ERC and ids: the producer's local ids come first, then the job's, once each", () => {
    const given = {
      erc: { who: 'Form', what: 'Form title', when: '2000' },
      primaryId: undefined,
      localIds: ['b', 'c'],
    };
    expect(applyProducerErc(given, parseProducerErc('who: Producer\nwhere: a; b\n'))).toEqual({
      erc: { who: 'Producer', what: 'Form title', when: '2000' },
      localIds: ['a', 'b', 'c'],
    });
    expect(applyProducerErc(given, parseProducerErc('where: ark:/99999/fk4z\n')).primaryId).toBe(
      'ark:/99999/fk4z',
    );
  });

  it('splits local ids at ; and joins them in Merritt’s form', () => {
    expect(splitLocalIds(['a; b', ' a ', undefined, 'c;;'])).toEqual(['a', 'b', 'c']);
    expect(joinLocalIds(splitLocalIds('x ; y'))).toBe('x;y');
  });
});

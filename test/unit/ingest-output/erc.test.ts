import { describe, expect, it } from 'vitest';
import { escapeXml, formatDublinCore, formatErc } from '../../../src/steps/formats/erc.js';

const object = {
  ark: 'ark:/99999/fk4abc',
  localIds: ['loc-1'],
  erc: { who: 'Doe, Jane', what: 'Rivers & <Streams>', when: '2024' },
};

describe('ERC and Dublin Core', () => {
  it('writes the ERC kernel as ANVL with where = ark then local ids', () => {
    expect(formatErc(object)).toBe(
      'erc:\nwho: Doe, Jane\nwhat: Rivers & <Streams>\nwhen: 2024\nwhere: ark:/99999/fk4abc\nwhere: loc-1\n',
    );
  });

  it('marks missing elements unassigned and folds multi-line values into continuation lines', () => {
    const text = formatErc({ ark: 'ark:/99999/fk4x', localIds: [], erc: { what: 'line one\r\nline two\n' } });
    expect(text).toBe(
      'erc:\nwho: (:unas)\nwhat: line one\n line two\nwhen: (:unas)\nwhere: ark:/99999/fk4x\n',
    );
    // Every line but a continuation starts with a label: no value can inject a label of its own.
    const injected = formatErc({
      ark: 'ark:/99999/fk4x',
      localIds: [],
      erc: { who: 'x\nwhere: ark:/1/evil' },
    });
    expect(injected.split('\n').filter((l) => l.startsWith('where:'))).toEqual(['where: ark:/99999/fk4x']);
  });

  it('keeps a depositor-given where after the ark and local ids, once', () => {
    const text = formatErc({ ...object, erc: { ...object.erc, where: 'loc-1' } });
    expect(text.match(/^where: .*$/gm)).toEqual(['where: ark:/99999/fk4abc', 'where: loc-1']);
  });

  it('writes simple Dublin Core with every value escaped', () => {
    const xml = formatDublinCore({
      ark: 'ark:/99999/fk4abc',
      localIds: ['a"b\'c'],
      erc: { who: 'Tom & Jerry', what: '<script>alert(1)</script>', when: '' },
    });
    expect(xml).toContain('<dc:dc xmlns:dc="http://purl.org/dc/elements/1.1/">');
    expect(xml).toContain('<dc:creator>Tom &amp; Jerry</dc:creator>');
    expect(xml).toContain('<dc:title>&lt;script&gt;alert(1)&lt;/script&gt;</dc:title>');
    expect(xml).toContain('<dc:identifier>ark:/99999/fk4abc</dc:identifier>');
    expect(xml).toContain('<dc:identifier>a&quot;b&apos;c</dc:identifier>');
    expect(xml).not.toContain('<dc:date>');
    expect(xml).not.toContain('<script>');
  });

  it('drops characters XML 1.0 cannot carry', () => {
    expect(escapeXml('a\u0000b\u0007c\ud800d\tok')).toBe('abcd\tok');
    expect(escapeXml('emoji 😀 stays')).toBe('emoji 😀 stays');
  });
});

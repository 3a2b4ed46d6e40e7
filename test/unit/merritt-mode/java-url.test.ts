import { describe, expect, it } from 'vitest';
import { javaUrlDecode, javaUrlEncode } from '../../../src/steps/formats/java-url.js';
import { inventoryNode, parseStoreMode, storeNode } from '../../../src/steps/services/handoff/handoff.js';

// Expected values from java.net.URLEncoder's documented rules (Java SE 17 API): "a"–"z", "A"–"Z",
// "0"–"9" and ".", "-", "*", "_" stay; a space becomes "+"; every other character is the bytes of
// its UTF-8 encoding, each written "%xy" with upper-case hex.
describe('javaUrlEncode (java.net.URLEncoder.encode(s, "UTF-8"))', () => {
  it.each([
    ['ark:/13030/m5xxxx', 'ark%3A%2F13030%2Fm5xxxx'],
    ['Hello World', 'Hello+World'],
    ['azAZ09.-*_', 'azAZ09.-*_'],
    // Where encodeURIComponent differs: it keeps ! ' ( ) ~ and encodes * and the space as %20.
    ["!'()~", '%21%27%28%29%7E'],
    ['a*b', 'a*b'],
    ['a+b=c&d', 'a%2Bb%3Dc%26d'],
    ['100%', '100%25'],
    ['é', '%C3%A9'],
    ['€', '%E2%82%AC'],
    ['😀', '%F0%9F%98%80'],
    ['', ''],
  ])('encodes %j as %j', (value, encoded) => {
    expect(javaUrlEncode(value)).toBe(encoded);
  });

  it('writes a lone surrogate as "?" (%3F), as Java\'s UTF-8 encoder does', () => {
    expect(javaUrlEncode('a\uD800b')).toBe('a%3Fb');
    expect(javaUrlEncode('\uDC00')).toBe('%3F');
  });

  it('decodes as URLDecoder: "+" is a space, escapes are UTF-8 bytes', () => {
    expect(javaUrlDecode('Hello+World')).toBe('Hello World');
    expect(javaUrlDecode('ark%3A%2F13030%2Fm5xxxx')).toBe('ark:/13030/m5xxxx');
    expect(javaUrlDecode('%C3%A9%2B')).toBe('é+');
    for (const value of ['ark:/99999/fk4 (draft)!', "it's ~ 100%", '😀*'])
      expect(javaUrlDecode(javaUrlEncode(value))).toBe(value);
  });
});

describe("hand-off nodes in Merritt's format (merritt-protocols.md §1, §2)", () => {
  const target = { action: 'add' as const, node: 7777, ark: 'ark:/13030/m5xxxx' };

  it('a store node has mode with three parts, the ark Java-encoded, and delete always present', () => {
    expect(
      JSON.stringify(storeNode('http://ingest:8080/ingestqueue/b/j/system/mrt-manifest.txt', target)),
    ).toBe(
      '{"manifest_url":"http://ingest:8080/ingestqueue/b/j/system/mrt-manifest.txt","mode":"add/7777/ark%3A%2F13030%2Fm5xxxx","delete":""}',
    );
  });

  it('an inventory node names the storage manifest of the ark on the node, mode empty', () => {
    expect(JSON.stringify(inventoryNode('http://store:8080/store', target))).toBe(
      '{"manifest_url":"http://store:8080/store/manifest/7777/ark%3A%2F13030%2Fm5xxxx","mode":""}',
    );
  });

  it('an ark with characters encodeURIComponent keeps is split back as mrt-store splits it', () => {
    const odd = { ...target, ark: "ark:/99999/fk4(x)!'~ y" };
    const { mode } = storeNode('u', odd);
    expect(mode).toBe('add/7777/ark%3A%2F99999%2Ffk4%28x%29%21%27%7E+y');
    expect(parseStoreMode('jid0000000001', mode)).toEqual(odd);
  });
});
